import { t } from '../i18n';
import { Icon, LogoMark } from './Icon';

/** Shown when the page has neither the desktop bridge nor a core token: there is nothing to talk to. */
export function NotConnected() {
  return (
    <main className="not-connected">
      <section className="not-connected-card" aria-labelledby="not-connected-title">
        <div className="not-connected-brand">
          <LogoMark size={28} />
          <span>{t('app.name')}</span>
        </div>
        <span className="not-connected-icon">
          <Icon name="plug" size={22} />
        </span>
        <h1 id="not-connected-title" className="not-connected-title">
          {t('notConnected.title')}
        </h1>
        <p className="muted">{t('notConnected.body')}</p>
        <p>{t('notConnected.howTo')}</p>
        <pre className="code-block">{t('notConnected.command')}</pre>
      </section>
    </main>
  );
}
