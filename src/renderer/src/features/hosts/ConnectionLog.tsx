import { useEffect, useId, useState } from 'react';
import { useFollowTail } from '../../components/use-follow-tail';
import type { ConnectionLogEntryView } from '../../../../shared/model/host';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { LOG_LIMIT, useAppStore, type HostLog } from '../../store';
import { formatLogTime } from './format';

const NO_LOG: HostLog = { entries: [], status: 'idle', error: null };

/** How close to the bottom (px) still counts as "at the newest entry". */

function logText(entries: ConnectionLogEntryView[]): string {
  return entries.map((e) => `${new Date(e.time).toISOString()} ${e.level.toUpperCase().padEnd(5)} ${e.message}`).join('\n');
}

/**
 * What happened while connecting to one host, newest at the bottom: the core's backlog (hosts:connectionLog)
 * merged with live hosts:log entries. It follows the newest entry until the user scrolls up, and again once
 * they scroll back down.
 */
export function ConnectionLog({ hostId, label }: { hostId: string; label: string }) {
  const log = useAppStore((s) => s.logByHost[hostId]) ?? NO_LOG;
  const load = useAppStore((s) => s.loadConnectionLog);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const { follow, setFollow, scrollRef, onScroll } = useFollowTail(log.entries);
  const titleId = useId();
  const followId = useId();

  useEffect(() => {
    if (log.status === 'idle') void load(hostId);
  }, [log.status, hostId, load]);


  useEffect(() => {
    if (copyState === 'idle') return;
    const timer = setTimeout(() => setCopyState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [copyState]);


  async function copy() {
    setCopyState((await copyText(logText(log.entries))) ? 'copied' : 'failed');
  }

  const count = log.entries.length;
  return (
    <section className="conn-log" aria-labelledby={titleId}>
      <header className="conn-log-header">
        <h4 id={titleId} className="conn-log-title">
          <Icon name="log" size={14} />
          {t('log.title')}
          <span className="conn-log-count">{count >= LOG_LIMIT ? t('log.countCapped', { count }) : t('log.count', { count })}</span>
        </h4>
        <div className="conn-log-tools">
          <label className="conn-log-follow" htmlFor={followId}>
            <input id={followId} type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} />
            {t('log.follow')}
          </label>
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void copy()} disabled={count === 0} aria-label={t('log.copyOf', { label })}>
            <Icon name={copyState === 'copied' ? 'check' : 'copy'} size={13} />
            {copyState === 'copied' ? t('log.copied') : t('log.copy')}
          </button>
        </div>
      </header>
      <span className="visually-hidden" role="status">
        {copyState === 'copied' ? t('log.copied') : copyState === 'failed' ? t('log.copyFailed') : ''}
      </span>
      {log.status === 'failed' && (
        <div className="conn-log-problem" role="alert">
          <span>{t('log.loadFailed', { message: log.error?.message ?? '' })}</span>
          <button type="button" className="btn btn-secondary btn-small" onClick={() => void load(hostId)}>
            {t('log.retry')}
          </button>
        </div>
      )}
      <div ref={scrollRef} className="conn-log-scroll" role="log" aria-label={t('log.ofHost', { label })} tabIndex={0} onScroll={onScroll}>
        {count === 0 ? (
          <p className="conn-log-empty">
            {log.status === 'loading' ? (
              <>
                <Spinner size={12} /> {t('log.loading')}
              </>
            ) : (
              t('log.empty')
            )}
          </p>
        ) : (
          <ol className="conn-log-list">
            {log.entries.map((entry, index) => (
              <li key={`${entry.time}-${index}`} className={`conn-log-row level-${entry.level}`}>
                <time className="conn-log-time" dateTime={new Date(entry.time).toISOString()}>
                  {formatLogTime(entry.time)}
                </time>
                <span className="conn-log-level">{t(`log.level.${entry.level}`)}</span>
                <span className="conn-log-message">{entry.message}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
