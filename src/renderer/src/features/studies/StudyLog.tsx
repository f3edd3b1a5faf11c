import { useId, useMemo, useState, type ReactNode } from 'react';
import { useFollowTail } from '../../components/use-follow-tail';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { foldForSearch } from '../../components/search-text';
import { t } from '../../i18n';
import { ENGINE_LOG_LIMIT } from '../../store';


/** The line with every case-insensitive occurrence of `query` marked. */
function highlighted(line: string, query: string): ReactNode {
  if (!query) return line;
  const lower = foldForSearch(line);
  const needle = foldForSearch(query);
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(line.slice(from, at));
    parts.push(<mark key={at}>{line.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  if (from < line.length) parts.push(line.slice(from));
  return parts;
}

/**
 * The study's log: a fixed-height pane (streaming never moves the page) that follows the newest line until paused
 * or scrolled up, with a search that highlights matches and can show only the matching lines.
 */
export function StudyLog({ lines }: { lines: string[] }) {
  const [query, setQuery] = useState('');
  const [onlyMatches, setOnlyMatches] = useState(false);
  const [copied, setCopied] = useState(false);
  const titleId = useId();
  const followId = useId();
  const searchId = useId();
  const onlyId = useId();

  const needle = query.trim();
  const matchCount = useMemo(() => (needle ? lines.filter((line) => foldForSearch(line).includes(foldForSearch(needle))).length : 0), [lines, needle]);
  const shown = useMemo(
    () => (needle && onlyMatches ? lines.filter((line) => foldForSearch(line).includes(foldForSearch(needle))) : lines),
    [lines, needle, onlyMatches],
  );
  const { follow, setFollow, scrollRef, onScroll } = useFollowTail(shown);



  const count = lines.length;
  return (
    <section className="conn-log study-log" aria-labelledby={titleId}>
      <header className="conn-log-header study-log-header">
        <h3 id={titleId} className="conn-log-title">
          <Icon name="log" size={14} />
          {t('studies.log.title')}
          <span className="conn-log-count">{count >= ENGINE_LOG_LIMIT ? t('engines.log.countCapped', { count }) : t('engines.log.count', { count })}</span>
        </h3>
        <div className="conn-log-tools study-log-tools">
          <label className="visually-hidden" htmlFor={searchId}>
            {t('studies.log.search')}
          </label>
          <input
            id={searchId}
            type="search"
            className="input study-log-search"
            placeholder={t('studies.log.searchPlaceholder')}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
          <span className="study-log-matches" aria-live="polite">
            {needle ? (matchCount === 1 ? t('studies.log.matchesOne') : t('studies.log.matches', { count: matchCount })) : ''}
          </span>
          <label className="conn-log-follow" htmlFor={onlyId}>
            <input id={onlyId} type="checkbox" checked={onlyMatches} disabled={!needle} onChange={(event) => setOnlyMatches(event.target.checked)} />
            {t('studies.log.onlyMatches')}
          </label>
          <label className="conn-log-follow" htmlFor={followId}>
            <input id={followId} type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} />
            {t('engines.log.follow')}
          </label>
          <button
            type="button"
            className="btn btn-ghost btn-small"
            disabled={count === 0}
            aria-label={t('studies.log.copy')}
            onClick={() => void copyText(lines.join('\n')).then((ok) => setCopied(ok))}
          >
            <Icon name={copied ? 'check' : 'copy'} size={13} />
            {copied ? t('engines.copied') : t('engines.copy')}
          </button>
        </div>
      </header>
      <div ref={scrollRef} className="conn-log-scroll study-log-scroll" role="log" aria-label={t('studies.log.label')} tabIndex={0} onScroll={onScroll}>
        {count === 0 ? (
          <p className="conn-log-empty">{t('studies.log.empty')}</p>
        ) : (
          <pre className="line-log-text">
            {shown.map((line, i) => (
              <span key={i} className="study-log-line">
                {highlighted(line, needle)}
                {'\n'}
              </span>
            ))}
          </pre>
        )}
      </div>
    </section>
  );
}
