// The streamed log pane (LogView).
const logs = {
  'logView.count': '{count} lines',
  'logView.countOne': '1 line',
  'logView.dropped': '{count} earlier lines dropped',
  'logView.follow': 'Follow',
  'logView.empty': 'Nothing yet.',
  'logView.newLines': '{count} new lines — jump to end',
  'logView.newLinesOne': '1 new line — jump to end',
  'logView.search': 'Search {title}',
  'logView.searchPlaceholder': 'Search',
  'logView.matches': '{current} of {count} matching lines',
  'logView.matchesOne': '1 of 1 matching line',
  'logView.noMatches': 'No match',
  'logView.previousMatch': 'Previous match',
  'logView.previousMatchHint': 'Previous match (Shift+Enter)',
  'logView.nextMatch': 'Next match',
  'logView.nextMatchHint': 'Next match (Enter)',
  'logView.onlyMatches': 'Only matching lines',
  'logView.noMatchingLine': 'No line matches “{query}”.',
  'logView.copyAll': 'Copy all',
  'logView.copyAllLabel': 'Copy all lines of “{title}”',
} as const;

export default logs;
