import { useId } from 'react';
import { t, type PlainMessageKey } from '../i18n';
import { Icon, type IconName } from './Icon';

interface NavEntry {
  id: string;
  label: PlainMessageKey;
  icon: IconName;
  /** Why the entry is not usable yet; absent for pages that exist. */
  upcoming?: PlainMessageKey;
}

const ENTRIES: NavEntry[] = [
  { id: 'hosts', label: 'nav.hosts', icon: 'server' },
  { id: 'engines', label: 'nav.engines', icon: 'layers' },
  { id: 'studies', label: 'nav.studies', icon: 'flask' },
  { id: 'results', label: 'nav.results', icon: 'chart' },
];

function UpcomingItem({ entry }: { entry: NavEntry & { upcoming: PlainMessageKey } }) {
  const tipId = useId();
  return (
    <li className="nav-entry">
      {/* aria-disabled rather than disabled: the entry stays focusable so keyboard users can read why. */}
      <button type="button" className="nav-item is-upcoming" aria-disabled="true" aria-describedby={tipId}>
        <Icon name={entry.icon} />
        <span className="nav-label">{t(entry.label)}</span>
        <span className="nav-soon">{t('nav.soon')}</span>
      </button>
      <span id={tipId} role="tooltip" className="tooltip">
        {t(entry.upcoming)}
      </span>
    </li>
  );
}

/**
 * The pages, and under them what runs in the background (studies), so it stays in view from every page.
 * `runningStudies` is the number of studies the core reports as running.
 */
export function NavRail({ active, onNavigate, runningStudies = 0 }: { active: string; onNavigate?: (id: string) => void; runningStudies?: number }) {
  return (
    <nav className="nav" aria-label={t('nav.label')}>
      <ul>
        {ENTRIES.map((entry) =>
          entry.upcoming ? (
            <UpcomingItem key={entry.id} entry={{ ...entry, upcoming: entry.upcoming }} />
          ) : (
            <li key={entry.id} className="nav-entry">
              <button
                type="button"
                className={`nav-item${entry.id === active ? ' is-active' : ''}`}
                aria-current={entry.id === active ? 'page' : undefined}
                onClick={() => onNavigate?.(entry.id)}
              >
                <Icon name={entry.icon} />
                <span className="nav-label">{t(entry.label)}</span>
              </button>
            </li>
          ),
        )}
      </ul>
      <p className="nav-status" role="status">
        {runningStudies > 0 && (
          <button type="button" className="nav-status-button" onClick={() => onNavigate?.('studies')}>
            <span className="nav-status-dot" aria-hidden="true" />
            {runningStudies === 1 ? t('studies.nav.runningOne') : t('studies.nav.running', { count: runningStudies })}
          </button>
        )}
      </p>
    </nav>
  );
}
