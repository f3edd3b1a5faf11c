import { useId, useState } from 'react';
import { useFollowTail } from '../../components/use-follow-tail';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { ENGINE_LOG_LIMIT } from '../../store';


/** A bounded plain-text log that follows the newest line until the user pauses it or scrolls up. */
export function LineLog({ lines, label, title }: { lines: string[]; label: string; title: string }) {
  const [copied, setCopied] = useState(false);
  const { follow, setFollow, scrollRef, onScroll } = useFollowTail(lines);
  const titleId = useId();
  const followId = useId();



  const count = lines.length;
  return (
    <section className="conn-log" aria-labelledby={titleId}>
      <header className="conn-log-header">
        <h4 id={titleId} className="conn-log-title">
          <Icon name="log" size={14} />
          {title}
          <span className="conn-log-count">{count >= ENGINE_LOG_LIMIT ? t('engines.log.countCapped', { count }) : t('engines.log.count', { count })}</span>
        </h4>
        <div className="conn-log-tools">
          <label className="conn-log-follow" htmlFor={followId}>
            <input id={followId} type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} />
            {t('engines.log.follow')}
          </label>
          <button
            type="button"
            className="btn btn-ghost btn-small"
            disabled={count === 0}
            onClick={() => void copyText(lines.join('\n')).then((ok) => setCopied(ok))}
          >
            <Icon name={copied ? 'check' : 'copy'} size={13} />
            {copied ? t('engines.copied') : t('engines.copy')}
          </button>
        </div>
      </header>
      <div ref={scrollRef} className="conn-log-scroll" role="log" aria-label={label} tabIndex={0} onScroll={onScroll}>
        {count === 0 ? (
          <p className="conn-log-empty">{t('engines.log.empty')}</p>
        ) : (
          <pre className="line-log-text">{lines.join('\n')}</pre>
        )}
      </div>
    </section>
  );
}
