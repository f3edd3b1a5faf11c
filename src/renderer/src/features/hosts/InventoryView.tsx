import { useId, type ReactNode } from 'react';
import { formatGpuSummary, type Gpu, type GpuProcess, type Inventory } from '../../../../shared/model/inventory';
import { Badge } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { formatMiB, formatOptional, formatTime, usedPercent } from './format';

function GpuRow({ gpu }: { gpu: Gpu }) {
  const used = usedPercent(gpu.memoryUsedMiB, gpu.memoryTotalMiB);
  const free = gpu.memoryFreeMiB ?? (gpu.memoryUsedMiB !== null ? gpu.memoryTotalMiB - gpu.memoryUsedMiB : null);
  const usedText = t('inventory.memoryUsed', { used: formatOptional(gpu.memoryUsedMiB, formatMiB) });
  const freeText = t('inventory.memoryFree', { free: formatOptional(free, formatMiB) });
  const power =
    gpu.powerDrawW === null
      ? t('inventory.unknown')
      : gpu.powerLimitW === null
        ? t('inventory.watts', { value: Math.round(gpu.powerDrawW) })
        : t('inventory.wattsOf', { value: Math.round(gpu.powerDrawW), limit: Math.round(gpu.powerLimitW) });
  return (
    <li className="gpu">
      <div className="gpu-head">
        <span className="gpu-index">{t('inventory.gpuIndex', { index: gpu.index })}</span>
        <span className="gpu-summary">{formatGpuSummary(gpu)}</span>
      </div>
      <div className="gpu-memory">
        <div
          className="meter"
          role="meter"
          aria-label={t('inventory.memoryLabel', { index: gpu.index })}
          aria-valuemin={0}
          aria-valuemax={gpu.memoryTotalMiB}
          aria-valuenow={gpu.memoryUsedMiB ?? undefined}
          aria-valuetext={`${usedText}, ${freeText}`}
        >
          <div className="meter-fill" style={{ width: `${used ?? 0}%` }} />
        </div>
        <div className="meter-legend">
          <span>{usedText}</span>
          <span>{freeText}</span>
        </div>
      </div>
      <dl className="gpu-stats">
        <div>
          <dt>{t('inventory.utilization')}</dt>
          <dd>{formatOptional(gpu.utilizationPct, (v) => t('inventory.percent', { value: Math.round(v) }))}</dd>
        </div>
        <div>
          <dt>{t('inventory.temperature')}</dt>
          <dd>{formatOptional(gpu.temperatureC, (v) => t('inventory.celsius', { value: Math.round(v) }))}</dd>
        </div>
        <div>
          <dt>{t('inventory.power')}</dt>
          <dd>{power}</dd>
        </div>
      </dl>
    </li>
  );
}

function GpuProcesses({ processes }: { processes: GpuProcess[] }) {
  if (processes.length === 0) return <p className="empty-line">{t('inventory.noProcesses')}</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th scope="col">{t('inventory.process.gpu')}</th>
          <th scope="col">{t('inventory.process.pid')}</th>
          <th scope="col">{t('inventory.process.name')}</th>
          <th scope="col" className="num">
            {t('inventory.process.memory')}
          </th>
        </tr>
      </thead>
      <tbody>
        {processes.map((p) => (
          <tr key={`${p.gpuUuid}-${p.pid}`}>
            <td>{p.gpuIndex ?? t('inventory.unknown')}</td>
            <td className="mono">{p.pid}</td>
            <td className="mono truncate" title={p.processName}>
              {p.processName}
            </td>
            <td className="num">{formatOptional(p.usedMemoryMiB, formatMiB)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Shown instead of the GPU list when nvidia-smi is missing, sees no GPU, or fails. */
function GpuStatusPanel({ inventory }: { inventory: Inventory }) {
  const status = inventory.gpuStatus as Exclude<Inventory['gpuStatus'], 'ok'>;
  return (
    <div className="panel panel-info" role="note">
      <Icon name="info" className="panel-icon" />
      <div>
        <p className="panel-title">{t(`inventory.gpuStatus.${status}.title`)}</p>
        <p>{t(`inventory.gpuStatus.${status}.body`)}</p>
        {inventory.gpuMessage && <pre className="panel-pre mono-block">{inventory.gpuMessage}</pre>}
      </div>
    </div>
  );
}

function Fact({ term, mono = false, wide = false, children }: { term: string; mono?: boolean; wide?: boolean; children: ReactNode }) {
  return (
    <div className={`fact${wide ? ' fact-wide' : ''}`}>
      <dt>{term}</dt>
      <dd className={mono ? 'mono' : undefined}>{children}</dd>
    </div>
  );
}

function Tool({ tool }: { tool: Inventory['tools']['uv'] }) {
  if (!tool.present) return <span className="muted">{t('inventory.toolMissing')}</span>;
  return <span>{tool.version ?? t('inventory.toolPresent')}</span>;
}

/** Everything read from one box: GPUs with memory and load, GPU processes, and the software around them. */
export function InventoryView({ inventory, label }: { inventory: Inventory; label: string }) {
  const gpusId = useId();
  const processesId = useId();
  const systemId = useId();
  const os = [inventory.os.name, inventory.os.arch].filter(Boolean).join(' · ');
  return (
    <section className="inventory" aria-label={t('inventory.label', { label })}>
      <div className="inventory-meta">
        {inventory.simulated && (
          <Badge tone="warning" title={t('inventory.simulatedHint')}>
            {t('inventory.simulated')}
          </Badge>
        )}
        {inventory.hostname && (
          <span>
            {t('inventory.hostname')} <span className="mono meta-value">{inventory.hostname}</span>
          </span>
        )}
        <span>{t('inventory.readAt', { time: formatTime(inventory.collectedAt) })}</span>
      </div>
      {inventory.simulated && <p className="simulated-note">{t('inventory.simulatedHint')}</p>}
      <div className="inventory-sections">
        <section aria-labelledby={gpusId}>
          <h4 id={gpusId} className="section-title">
            {t('inventory.gpus')}
            {inventory.gpuStatus === 'ok' && (
              <span className="section-count">
                {inventory.gpus.length === 1 ? t('inventory.gpuCountOne') : t('inventory.gpuCount', { count: inventory.gpus.length })}
              </span>
            )}
          </h4>
          {inventory.gpuStatus === 'ok' ? (
            <ul className="gpu-list">
              {inventory.gpus.map((gpu) => (
                <GpuRow key={gpu.uuid || gpu.index} gpu={gpu} />
              ))}
            </ul>
          ) : (
            <GpuStatusPanel inventory={inventory} />
          )}
        </section>
        {inventory.gpuStatus === 'ok' && (
          <section aria-labelledby={processesId}>
            <h4 id={processesId} className="section-title">
              {t('inventory.processes')}
            </h4>
            <GpuProcesses processes={inventory.gpuProcesses} />
          </section>
        )}
        <section aria-labelledby={systemId}>
          <h4 id={systemId} className="section-title">
            {t('inventory.system')}
          </h4>
          <dl className="facts">
            <Fact term={t('inventory.driver')}>{inventory.driverVersion ?? t('inventory.unknown')}</Fact>
            <Fact term={t('inventory.cuda')}>{inventory.cudaVersion ?? t('inventory.unknown')}</Fact>
            <Fact term={t('inventory.os')} wide>{os || t('inventory.unknown')}</Fact>
            <Fact term={t('inventory.kernel')} mono wide>
              {inventory.os.kernel ?? t('inventory.unknown')}
            </Fact>
            <Fact term={t('inventory.cpus')}>{inventory.cpuCount ?? t('inventory.unknown')}</Fact>
            <Fact term={t('inventory.memory')}>{formatOptional(inventory.memoryTotalMiB, formatMiB)}</Fact>
            <Fact term={t('inventory.python')}>{inventory.python.version ?? t('inventory.toolMissing')}</Fact>
            <Fact term={t('inventory.uv')}>
              <Tool tool={inventory.tools.uv} />
            </Fact>
            <Fact term={t('inventory.pip')}>
              <Tool tool={inventory.tools.pip} />
            </Fact>
            <Fact term={t('inventory.docker')}>
              <Tool tool={inventory.tools.docker} />
            </Fact>
            <Fact term={t('inventory.disk')} wide>
              {inventory.disk.freeMiB === null
                ? t('inventory.unknown')
                : inventory.disk.totalMiB === null
                  ? formatMiB(inventory.disk.freeMiB)
                  : t('inventory.diskOf', { free: formatMiB(inventory.disk.freeMiB), total: formatMiB(inventory.disk.totalMiB) })}
              {inventory.disk.path && <span className="fact-sub mono">{inventory.disk.path}</span>}
            </Fact>
          </dl>
        </section>
      </div>
    </section>
  );
}
