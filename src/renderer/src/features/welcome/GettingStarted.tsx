import { useId, useState } from 'react';
import { Icon } from '../../components/Icon';
import { t, type PlainMessageKey } from '../../i18n';
import { useAppStore } from '../../store';
import './welcome.css';

export const GUIDE_STORAGE_KEY = 'servelab.guide.hidden';

function storedHidden(): boolean {
  try {
    return window.localStorage.getItem(GUIDE_STORAGE_KEY) === '1';
  } catch {
    return false;
  }
}

function storeHidden(hidden: boolean): void {
  try {
    if (hidden) window.localStorage.setItem(GUIDE_STORAGE_KEY, '1');
    else window.localStorage.removeItem(GUIDE_STORAGE_KEY);
  } catch {
    // Storage can be disabled: the guide then shows again next time, which loses nothing.
  }
}

const STEPS: readonly { title: PlainMessageKey; body: PlainMessageKey }[] = [
  { title: 'guide.step.lab.title', body: 'guide.step.lab.body' },
  { title: 'guide.step.study.title', body: 'guide.step.study.body' },
  { title: 'guide.step.decide.title', body: 'guide.step.decide.body' },
  { title: 'guide.step.share.title', body: 'guide.step.share.body' },
];

/**
 * The first thing a newcomer reads: the path from the demo lab to an exported report, in four steps, with the one
 * button that starts it. Hidden for good once dismissed; "Getting started" in the page header brings it back.
 */
export function GettingStarted() {
  const showPage = useAppStore((s) => s.showPage);
  const hasDemo = useAppStore((s) => s.hosts.some((h) => h.kind === 'demo'));
  const [hidden, setHidden] = useState(storedHidden);
  const titleId = useId();

  if (hidden) {
    return (
      <button
        type="button"
        className="btn btn-ghost btn-small guide-reopen"
        onClick={() => {
          storeHidden(false);
          setHidden(false);
        }}
      >
        <Icon name="info" size={13} />
        {t('guide.show')}
      </button>
    );
  }
  return (
    <section className="card guide" aria-labelledby={titleId}>
      <header className="guide-head">
        <h2 id={titleId} className="card-title">
          <Icon name="flask" size={16} />
          {t('guide.title')}
        </h2>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={() => {
            storeHidden(true);
            setHidden(true);
          }}
        >
          {t('guide.hide')}
        </button>
      </header>
      <p className="muted">{hasDemo ? t('guide.intro') : t('guide.introNoDemo')}</p>
      <ol className="guide-steps">
        {STEPS.map((step, i) => (
          <li key={step.title} className="guide-step">
            <span className="guide-step-number" aria-hidden="true">
              {i + 1}
            </span>
            <div>
              <p className="guide-step-title">{t(step.title)}</p>
              <p className="guide-step-body">{t(step.body)}</p>
            </div>
          </li>
        ))}
      </ol>
      <div className="guide-actions">
        <button type="button" className="btn btn-primary" onClick={() => showPage('studies')}>
          <Icon name="flask" size={14} />
          {t('guide.openStudies')}
        </button>
      </div>
    </section>
  );
}
