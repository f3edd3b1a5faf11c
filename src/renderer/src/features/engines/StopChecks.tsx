import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import type { StopResult } from '../../store';

function CheckRow({ ok, label }: { ok: boolean; label: string }) {
  return (
    <li className={`stop-check ${ok ? 'is-ok' : 'is-bad'}`}>
      <Icon name={ok ? 'check' : 'alert'} size={14} />
      {label}
    </li>
  );
}

/** What the core found after a stop: the port, the GPU memory and anything left behind. */
export function StopChecks({ result, title }: { result: StopResult; title: string }) {
  return (
    <div className="stop-result" role="status">
      <p className="stop-result-title">{title}</p>
      <ul className="stop-checks">
        <CheckRow ok={result.portClosed} label={result.portClosed ? t('engines.stop.portClosed') : t('engines.stop.portOpen')} />
        <CheckRow ok={result.gpuMemoryReleased} label={result.gpuMemoryReleased ? t('engines.stop.gpuReleased') : t('engines.stop.gpuHeld')} />
        <CheckRow ok={result.leftovers.length === 0} label={result.leftovers.length === 0 ? t('engines.stop.noLeftovers') : t('engines.stop.leftovers')} />
      </ul>
      {result.leftovers.length > 0 && (
        <ul className="stop-leftovers">
          {result.leftovers.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
