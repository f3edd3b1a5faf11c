import { Modal } from '../../components/Modal';
import { t } from '../../i18n';
import { SHORTCUTS } from './use-app-commands';

function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
}

/** Every keyboard shortcut of the app, with the keys as this platform names them. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const mod = isMac() ? '⌘' : t('shortcuts.ctrl');
  return (
    <Modal
      title={t('shortcuts.title')}
      onClose={onClose}
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {t('shortcuts.close')}
        </button>
      }
    >
      <table className="shortcuts-table">
        <caption className="visually-hidden">{t('shortcuts.title')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('shortcuts.action')}</th>
            <th scope="col">{t('shortcuts.keys')}</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(({ command, keys }) => (
            <tr key={command}>
              <td>{t(`shortcuts.command.${command}`)}</td>
              <td>
                {keys.map((key, i) => (
                  <span key={key}>
                    {i > 0 && '+'}
                    <kbd>{key === 'Mod' ? mod : key === 'Shift' ? t('shortcuts.shift') : key}</kbd>
                  </span>
                ))}
              </td>
            </tr>
          ))}
          <tr>
            <td>{t('shortcuts.command.shortcuts')}</td>
            <td>
              <kbd>?</kbd> <span className="muted">{t('shortcuts.outsideText')}</span>
            </td>
          </tr>
        </tbody>
      </table>
    </Modal>
  );
}
