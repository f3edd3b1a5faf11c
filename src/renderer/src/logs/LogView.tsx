/**
 * LogView — the one pane for every streamed log (install, server, benchmark, study).
 *
 *   <LogView buffer={run.log} title="Server log" label="Server log lines" />
 *
 * Props:
 *   buffer      the LogBuffer the store fills from events (`log-buffer.ts`); the view subscribes to it itself and
 *               renders at most once per animation frame, so the owner need not re-render when lines arrive.
 *   title       the heading shown above the pane.
 *   label       the accessible name of the scroll area (role="log"); tests and assistive technology find it by it.
 *   emptyText   what an empty log says (default "Nothing yet.").
 *   searchable  search box with match count, next/previous (Enter / Shift+Enter) and "only matching lines"
 *               (default true).
 *   height      the scroll area's fixed height in px (default 320): streaming never moves the page.
 *   headingLevel  3 or 4 (default 4), to fit the outline of the page around it.
 *
 * Rows have one fixed height, so the visible slice of 200,000 lines is arithmetic: only it (plus an overscan) is
 * rendered. Lines do not wrap; the pane scrolls sideways. ANSI colours become CSS classes (`ansi.ts`); search and
 * copy see the text without escapes.
 */
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';
import { copyText } from '../components/clipboard';
import { Icon } from '../components/Icon';
import { formattingLocale, t } from '../i18n';
import { ansiClassName, ansiInlineStyle, parseAnsi, type AnsiSegment } from './ansi';
import type { LogBuffer } from './log-buffer';
import { LineMatcher, NO_MATCHES, type LogMatches } from './log-search';
import { foldForSearch } from '../components/search-text';
import './logs.css';

/** Every row is this tall (the CSS says the same), so positions are multiplication, not measurement. */
export const LOG_ROW_HEIGHT = 18;
/** Rows drawn above and below the visible ones, so a fast scroll does not show blank space. */
const OVERSCAN = 12;
/** How close to the bottom (px) still counts as "at the end". */
const FOLLOW_SLACK = LOG_ROW_HEIGHT;
const DEFAULT_HEIGHT = 320;

export interface LogViewProps {
  buffer: LogBuffer;
  title: string;
  label: string;
  emptyText?: string;
  searchable?: boolean;
  height?: number;
  headingLevel?: 3 | 4;
}

let countFormat: { locale: string; format: Intl.NumberFormat } | null = null;

/** Counts change every frame while a log streams: one NumberFormat per locale, not one per call. */
function formatCount(n: number): string {
  const locale = formattingLocale();
  if (countFormat?.locale !== locale) countFormat = { locale, format: new Intl.NumberFormat(locale) };
  return countFormat.format.format(n);
}

/** Where `needle` occurs in `plain`, case-insensitively as the search compares (`foldForSearch`), as [start, end) ranges. */
function matchRanges(plain: string, needle: string): [number, number][] {
  if (!needle) return [];
  const ranges: [number, number][] = [];
  const text = foldForSearch(plain);
  const folded = foldForSearch(needle);
  for (let at = text.indexOf(folded); at !== -1; at = text.indexOf(folded, at + folded.length)) ranges.push([at, at + folded.length]);
  return ranges;
}

/** The segments of one line as spans, with the search matches marked across segment boundaries. */
function renderSegments(segments: AnsiSegment[], ranges: [number, number][], current: boolean): ReactNode[] {
  const out: ReactNode[] = [];
  let offset = 0;
  let r = 0;
  segments.forEach((segment, s) => {
    const className = ansiClassName(segment.style) || undefined;
    const style = ansiInlineStyle(segment.style);
    const start = offset;
    const end = offset + segment.text.length;
    offset = end;
    const pieces: ReactNode[] = [];
    let at = start;
    while (at < end) {
      while (r < ranges.length && ranges[r]![1] <= at) r++;
      const range = ranges[r];
      if (!range || range[0] >= end) {
        pieces.push(segment.text.slice(at - start));
        break;
      }
      if (range[0] > at) {
        pieces.push(segment.text.slice(at - start, range[0] - start));
        at = range[0];
      }
      const stop = Math.min(range[1], end);
      pieces.push(
        <mark key={at} className={current ? 'is-current' : undefined}>
          {segment.text.slice(at - start, stop - start)}
        </mark>,
      );
      at = stop;
    }
    out.push(className || style ? (
      <span key={s} className={className} style={style}>
        {pieces}
      </span>
    ) : (
      pieces.length === 1 && typeof pieces[0] === 'string' ? pieces[0] : <span key={s}>{pieces}</span>
    ));
  });
  return out;
}

export function LogView({ buffer, title, label, emptyText, searchable = true, height = DEFAULT_HEIGHT, headingLevel = 4 }: LogViewProps) {
  const subscribe = useCallback((listener: () => void) => buffer.subscribe(listener), [buffer]);
  const version = useSyncExternalStore(subscribe, () => buffer.version);
  const matcher = useMemo(() => new LineMatcher(buffer), [buffer]);

  const [follow, setFollowState] = useState(true);
  /** totalAppended when following stopped: what came after is "new". */
  const [pausedAt, setPausedAt] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [query, setQuery] = useState('');
  const [onlyMatches, setOnlyMatches] = useState(false);
  /** The current match as an absolute line number (stays on its line while lines stream in or are dropped). */
  const [currentLine, setCurrentLine] = useState<number | null>(null);
  const [copied, setCopied] = useState(false);
  const scrollRef = useRef<HTMLDivElement>(null);
  /** A scroll position a handler asked for, applied to the element after the render that makes room for it. */
  const pendingTop = useRef<number | null>(null);
  const seenDropped = useRef(0);
  /** A match was just made current: bring it into view sideways too once it is drawn. */
  const revealMatch = useRef(false);

  const titleId = useId();
  const followId = useId();
  const searchId = useId();
  const onlyId = useId();

  const needle = searchable ? query.trim() : '';
  const matches: LogMatches = useMemo(() => (needle ? matcher.update(needle, version) : NO_MATCHES), [matcher, needle, version]);
  const filtered = needle !== '' && onlyMatches;

  const length = buffer.length;
  const dropped = buffer.dropped;
  const total = buffer.totalAppended;
  const rowCount = filtered ? matches.count : length;
  const totalHeight = rowCount * LOG_ROW_HEIGHT;
  const maxTop = Math.max(0, totalHeight - height);
  const top = follow ? maxTop : Math.min(scrollTop, maxTop);
  const first = Math.max(0, Math.floor(top / LOG_ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rowCount, Math.ceil((top + height) / LOG_ROW_HEIGHT) + OVERSCAN);
  const lineOfRow = (row: number) => (filtered ? matches.at(row) - dropped : row);

  const currentK = currentLine === null ? -1 : matches.lowerBound(currentLine);
  const current = currentK >= 0 && currentK < matches.count && matches.at(currentK) === currentLine ? currentLine : null;

  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    const droppedSince = dropped - seenDropped.current;
    seenDropped.current = dropped;
    if (follow) {
      element.scrollTop = totalHeight;
    } else if (pendingTop.current !== null) {
      element.scrollTop = pendingTop.current;
      pendingTop.current = null;
    } else if (droppedSince > 0 && !filtered) {
      // Paused on some lines while older ones were dropped: keep those lines in view instead of sliding on.
      element.scrollTop = Math.max(0, element.scrollTop - droppedSince * LOG_ROW_HEIGHT);
    }
    if (revealMatch.current) {
      revealMatch.current = false;
      const mark = element.querySelector<HTMLElement>('mark.is-current');
      // offsetLeft is within the rows block, which starts at the left edge of the scrolled content.
      if (mark && (mark.offsetLeft < element.scrollLeft || mark.offsetLeft + mark.offsetWidth > element.scrollLeft + element.clientWidth)) {
        element.scrollLeft = Math.max(0, mark.offsetLeft - 48);
      }
    }
    // Every render: a handler's pending position must land even when nothing else changed.
  });

  function setFollow(on: boolean) {
    if (on === follow) return;
    setFollowState(on);
    if (!on) {
      setPausedAt(total);
      setScrollTop(top);
      pendingTop.current = top;
    }
  }

  /** Scrolls to `target` px and stops following; following resumes when the target is the end. */
  function scrollToTop(target: number) {
    const clamped = Math.max(0, Math.min(maxTop, target));
    if (clamped >= maxTop) {
      setFollowState(true);
      return;
    }
    if (follow) {
      setFollowState(false);
      setPausedAt(total);
    }
    setScrollTop(clamped);
    pendingTop.current = clamped;
  }

  function onScroll() {
    const element = scrollRef.current;
    if (!element) return;
    const position = element.scrollTop;
    const viewport = element.clientHeight || height;
    const atEnd = position + viewport >= totalHeight - FOLLOW_SLACK;
    setScrollTop(position);
    if (follow && !atEnd) {
      setFollowState(false);
      setPausedAt(total);
    } else if (!follow && atEnd && pendingTop.current === null) {
      setFollowState(true);
    }
  }

  function onScrollKey(event: KeyboardEvent<HTMLDivElement>) {
    const page = Math.max(LOG_ROW_HEIGHT, height - 2 * LOG_ROW_HEIGHT);
    const moves: Record<string, () => void> = {
      Home: () => scrollToTop(0),
      End: () => setFollowState(true),
      PageUp: () => scrollToTop(top - page),
      PageDown: () => scrollToTop(top + page),
    };
    const move = moves[event.key];
    if (!move || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    move();
  }

  /** Makes the match at `k` current and scrolls it into the middle of the pane if it is not in view. */
  function goToMatch(list: LogMatches, k: number, rows: { filtered: boolean }) {
    if (list.count === 0) return;
    const index = ((k % list.count) + list.count) % list.count;
    const line = list.at(index);
    setCurrentLine(line);
    revealMatch.current = true;
    const row = rows.filtered ? index : line - dropped;
    const rowTop = row * LOG_ROW_HEIGHT;
    const visible = rowTop >= top && rowTop + LOG_ROW_HEIGHT <= top + height;
    if (!visible) scrollToTop(rowTop - height / 2 + LOG_ROW_HEIGHT / 2);
  }

  function step(direction: 1 | -1) {
    if (matches.count === 0) return;
    let k: number;
    if (current === null) {
      // From the first line in view: the first match at or below it, or the last one above it.
      const firstVisible = lineOfRow(Math.min(rowCount - 1, Math.floor(top / LOG_ROW_HEIGHT))) + dropped;
      k = matches.lowerBound(firstVisible);
      if (direction === -1) k -= 1;
    } else {
      k = currentK + direction;
    }
    goToMatch(matches, k, { filtered });
  }

  function changeQuery(next: string) {
    setQuery(next);
    const nextNeedle = next.trim();
    if (!nextNeedle) {
      setCurrentLine(null);
      return;
    }
    // Find as you type: the first match from the top of the view (or the last one above it) becomes current.
    const list = matcher.update(nextNeedle, buffer.version);
    if (list.count === 0) {
      setCurrentLine(null);
      return;
    }
    const rowsFiltered = onlyMatches;
    const firstVisibleLine = filtered ? lineOfRow(Math.min(rowCount - 1, Math.floor(top / LOG_ROW_HEIGHT))) : Math.floor(top / LOG_ROW_HEIGHT);
    let k = list.lowerBound(firstVisibleLine + dropped);
    if (k >= list.count) k = list.count - 1;
    goToMatch(list, k, { filtered: rowsFiltered });
  }

  function toggleOnlyMatches(on: boolean) {
    setOnlyMatches(on);
    // Keep the current match in view across the switch.
    if (current !== null) {
      const row = on ? matches.lowerBound(current) : current - dropped;
      scrollToTop(row * LOG_ROW_HEIGHT - height / 2);
    }
  }

  const rows: ReactNode[] = [];
  for (let row = first; row < last; row++) {
    const index = lineOfRow(row);
    if (index < 0 || index >= length) continue;
    const absolute = index + dropped;
    const isCurrent = absolute === current;
    const segments = parseAnsi(buffer.line(index));
    const plain = segments.map((s) => s.text).join('');
    rows.push(
      <div key={absolute} className={`log-line${isCurrent ? ' is-current' : ''}`} data-line={absolute + 1}>
        {renderSegments(segments, matchRanges(plain, needle), isCurrent)}
      </div>,
    );
  }

  const newLines = follow ? 0 : Math.max(0, total - pausedAt);
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  const countText = length === 1 ? t('logView.countOne') : t('logView.count', { count: formatCount(length) });
  const matchText =
    needle === ''
      ? ''
      : matches.count === 0
        ? t('logView.noMatches')
        : matches.count === 1
          ? t('logView.matchesOne')
          : t('logView.matches', { current: formatCount(current === null ? 0 : currentK + 1), count: formatCount(matches.count) });

  return (
    <section className="conn-log log-view" aria-labelledby={titleId}>
      <header className="conn-log-header log-view-header">
        <Heading id={titleId} className="conn-log-title">
          <Icon name="log" size={14} />
          {title}
          <span className="conn-log-count">
            {countText}
            {dropped > 0 && ` · ${t('logView.dropped', { count: formatCount(dropped) })}`}
          </span>
        </Heading>
        <div className="conn-log-tools log-view-tools">
          <label className="conn-log-follow" htmlFor={followId}>
            <input id={followId} type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} />
            {t('logView.follow')}
          </label>
          <button
            type="button"
            className="btn btn-ghost btn-small"
            disabled={length === 0}
            aria-label={t('logView.copyAllLabel', { title })}
            onClick={() => void copyText(buffer.plainText()).then((ok) => setCopied(ok))}
          >
            <Icon name={copied ? 'check' : 'copy'} size={13} />
            {copied ? t('engines.copied') : t('logView.copyAll')}
          </button>
        </div>
      </header>
      {searchable && (
        <div className="log-view-search" role="search">
          <label className="visually-hidden" htmlFor={searchId}>
            {t('logView.search', { title })}
          </label>
          <input
            id={searchId}
            type="search"
            className="input log-view-search-input"
            placeholder={t('logView.searchPlaceholder')}
            value={query}
            onChange={(event) => changeQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              event.preventDefault();
              step(event.shiftKey ? -1 : 1);
            }}
          />
          <button type="button" className="btn btn-ghost btn-small log-view-step" aria-label={t('logView.previousMatch')} title={t('logView.previousMatchHint')} disabled={matches.count === 0} onClick={() => step(-1)}>
            <span aria-hidden="true">↑</span>
          </button>
          <button type="button" className="btn btn-ghost btn-small log-view-step" aria-label={t('logView.nextMatch')} title={t('logView.nextMatchHint')} disabled={matches.count === 0} onClick={() => step(1)}>
            <span aria-hidden="true">↓</span>
          </button>
          <span className="log-view-matches" aria-live="polite">
            {matchText}
          </span>
          <label className="conn-log-follow" htmlFor={onlyId}>
            <input id={onlyId} type="checkbox" checked={onlyMatches} disabled={!needle} onChange={(event) => toggleOnlyMatches(event.target.checked)} />
            {t('logView.onlyMatches')}
          </label>
        </div>
      )}
      <div className="log-view-body">
        {/* aria-live off: a log streaming thousands of lines a second must not be read out line by line. */}
        <div
          ref={scrollRef}
          className="log-view-scroll"
          role="log"
          aria-label={label}
          aria-live="off"
          tabIndex={0}
          style={{ height }}
          onScroll={onScroll}
          onKeyDown={onScrollKey}
        >
          {length === 0 ? (
            <p className="conn-log-empty">{emptyText ?? t('logView.empty')}</p>
          ) : filtered && matches.count === 0 ? (
            <p className="conn-log-empty">{t('logView.noMatchingLine', { query: needle })}</p>
          ) : (
            <div className="log-view-spacer" style={{ height: totalHeight }}>
              <div className="log-view-rows" style={{ transform: `translateY(${first * LOG_ROW_HEIGHT}px)` }}>
                {rows}
              </div>
            </div>
          )}
        </div>
        {newLines > 0 && (
          <button type="button" className="btn btn-secondary btn-small log-view-jump" onClick={() => setFollowState(true)}>
            {newLines === 1 ? t('logView.newLinesOne') : t('logView.newLines', { count: formatCount(newLines) })}
          </button>
        )}
      </div>
    </section>
  );
}
