import type { Host } from '../../../../shared/model/host';
import { ConfirmDangerDialog } from '../../components/ConfirmDangerDialog';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';

export function RemoveHostDialog({ host, onClose }: { host: Host; onClose: () => void }) {
  const removeHost = useAppStore((s) => s.removeHost);
  return (
    <ConfirmDangerDialog
      title={t('removeHost.title', { label: host.label })}
      cancelLabel={t('removeHost.cancel')}
      confirmLabel={t('removeHost.confirm')}
      failureMessage={(e) => t('removeHost.failed', { message: toErrorInfo(e).message })}
      onConfirm={() => removeHost(host.id)}
      onClose={onClose}
    >
      {host.kind === 'demo' ? (
        <p>{t('removeHost.demoBody')}</p>
      ) : (
        <>
          <p>{t('removeHost.body')}</p>
          <p className="muted">{t('removeHost.kept')}</p>
        </>
      )}
    </ConfirmDangerDialog>
  );
}
