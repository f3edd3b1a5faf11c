import { useId } from 'react';
import type { ClusterInventory, ClusterNode, ClusterNodeType, ClusterPartition } from '../../../../shared/model/cluster';
import { Badge } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { formatHoursMinutes, formatMiB, formatOptional, formatTime } from './format';

const nodeCount = (n: number) => (n === 1 ? t('cluster.nodeCountOne') : t('cluster.nodeCount', { count: n }));

function timeLimit(minutes: number | null): string {
  return minutes === null ? t('cluster.unlimited') : formatHoursMinutes(minutes);
}

function PartitionTable({ partitions }: { partitions: ClusterPartition[] }) {
  if (partitions.length === 0) return <p className="empty-line">{t('cluster.noPartitions')}</p>;
  return (
    <div className="cluster-table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">{t('cluster.partition.name')}</th>
            <th scope="col">{t('cluster.partition.state')}</th>
            <th scope="col" className="num">
              {t('cluster.partition.maxTime')}
            </th>
            <th scope="col" className="num">
              {t('cluster.partition.defaultTime')}
            </th>
            <th scope="col" className="num">
              {t('cluster.partition.nodes')}
            </th>
          </tr>
        </thead>
        <tbody>
          {partitions.map((p) => (
            <tr key={p.name}>
              <th scope="row">
                <span className="cluster-row-name">
                  <span className="mono">{p.name}</span>
                  {p.isDefault && (
                    <Badge tone="accent" title={t('cluster.partition.defaultTitle')}>
                      {t('cluster.partition.default')}
                    </Badge>
                  )}
                </span>
              </th>
              <td className={p.state === 'UP' ? undefined : 'cluster-warn'}>{t(`cluster.partitionState.${p.state}`)}</td>
              <td className="num">{timeLimit(p.maxTimeMinutes)}</td>
              <td className="num">{p.defaultTimeMinutes === null ? t('cluster.defaultTimeIsLimit') : formatHoursMinutes(p.defaultTimeMinutes)}</td>
              <td className="num" title={p.nodeList}>
                {p.totalNodes ?? p.nodes.length}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function gpusOf(type: ClusterNodeType): string {
  if (type.gpusPerNode === 0) return t('cluster.nodeType.noGpu');
  return type.gpuType === null ? t('cluster.nodeType.gpusUntyped', { count: type.gpusPerNode }) : t('cluster.nodeType.gpusTyped', { count: type.gpusPerNode, type: type.gpuType });
}

/** One kind of node: what a job can ask of it, how many there are and how many take jobs now, and why the others do not. */
function NodeTypeCard({ type, nodes }: { type: ClusterNodeType; nodes: Map<string, ClusterNode> }) {
  const members = type.nodes.map((name) => nodes.get(name)).filter((n): n is ClusterNode => n !== undefined);
  const notTaking = members.filter((n) => !n.state.schedulable);
  const ready = type.nodes.length - notTaking.length;
  const listId = useId();
  return (
    <li className="cluster-node-type">
      <div className="gpu-head">
        <span className="gpu-summary">{gpusOf(type)}</span>
        <span className="section-count">{nodeCount(type.nodes.length)}</span>
      </div>
      <dl className="gpu-stats">
        <div>
          <dt>{t('cluster.nodeType.cpus')}</dt>
          <dd>{type.cpus}</dd>
        </div>
        <div>
          <dt>{t('cluster.nodeType.memory')}</dt>
          <dd>{formatOptional(type.memoryMiB, formatMiB)}</dd>
        </div>
        <div>
          <dt>{t('cluster.nodeType.schedulable')}</dt>
          <dd className={notTaking.length > 0 ? 'cluster-warn' : undefined}>{t('cluster.nodeType.schedulableOf', { ready, total: type.nodes.length })}</dd>
        </div>
        <div>
          <dt>{t('cluster.nodeType.nodes')}</dt>
          <dd className="mono">{type.nodes.join(', ')}</dd>
        </div>
        <div>
          <dt>{t('cluster.nodeType.partitions')}</dt>
          <dd className="mono">{type.partitions.join(', ')}</dd>
        </div>
      </dl>
      {notTaking.length > 0 && (
        <div className="cluster-not-taking">
          <p id={listId} className="cluster-not-taking-title">
            <Icon name="alert" size={13} />
            {t('cluster.notTaking')}
          </p>
          <ul aria-labelledby={listId}>
            {notTaking.map((n) => (
              <li key={n.name}>
                <span className="mono">{n.name}</span> <span className="mono meta-value">{n.state.text}</span> — {n.reason ?? t('cluster.noReason')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

function Accounts({ cluster }: { cluster: ClusterInventory }) {
  const { user, accounting } = cluster;
  if (!accounting.available) {
    return (
      <div className="panel panel-info" role="note">
        <Icon name="info" className="panel-icon" />
        <div>
          <p>{t('cluster.accounting.unavailable')}</p>
          {accounting.message && <pre className="panel-pre mono-block">{accounting.message}</pre>}
        </div>
      </div>
    );
  }
  return (
    <>
      <p className="muted">{t('cluster.accounting.available')}</p>
      {user.associations.length === 0 ? (
        <p className="empty-line">{t('cluster.noAssociations', { user: user.name })}</p>
      ) : (
        <div className="cluster-table-wrap">
          <table className="table" aria-label={t('cluster.accountsOf', { user: user.name })}>
            <thead>
              <tr>
                <th scope="col">{t('cluster.account.name')}</th>
                <th scope="col">{t('cluster.account.partition')}</th>
                <th scope="col">{t('cluster.account.qos')}</th>
              </tr>
            </thead>
            <tbody>
              {user.associations.map((a) => (
                <tr key={`${a.account}\u0000${a.partition ?? ''}`}>
                  <th scope="row">
                    <span className="cluster-row-name">
                      <span className="mono">{a.account}</span>
                      {a.account === user.defaultAccount && (
                        <Badge tone="accent" title={t('cluster.account.defaultTitle')}>
                          {t('cluster.account.default')}
                        </Badge>
                      )}
                    </span>
                  </th>
                  <td className="mono">{a.partition ?? t('cluster.account.allPartitions')}</td>
                  <td className="mono">{a.qos.map((q) => (q === a.defaultQos ? t('cluster.account.defaultQos', { qos: q }) : q)).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** What was read from a Slurm cluster's login node: its partitions, node types with their GPUs, and the user's accounts. */
export function ClusterView({ cluster, label }: { cluster: ClusterInventory; label: string }) {
  const partitionsId = useId();
  const nodeTypesId = useId();
  const accountsId = useId();
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  return (
    <section className="inventory" aria-label={t('cluster.label', { label })}>
      <div className="inventory-meta">
        <span>
          {t('cluster.name')} <span className="mono meta-value">{cluster.clusterName ?? t('cluster.unnamed')}</span>
        </span>
        <span>{t('cluster.version', { version: cluster.slurmVersion })}</span>
        <span>{t('inventory.readAt', { time: formatTime(cluster.collectedAt) })}</span>
      </div>
      <div className="inventory-sections">
        <section aria-labelledby={partitionsId}>
          <h4 id={partitionsId} className="section-title">
            {t('cluster.partitions')}
            <span className="section-count">{cluster.partitions.length === 1 ? t('cluster.partitionCountOne') : t('cluster.partitionCount', { count: cluster.partitions.length })}</span>
          </h4>
          <PartitionTable partitions={cluster.partitions} />
        </section>
        <section aria-labelledby={nodeTypesId}>
          <h4 id={nodeTypesId} className="section-title">
            {t('cluster.nodeTypes')}
            <span className="section-count">{nodeCount(cluster.nodes.length)}</span>
          </h4>
          <ul className="gpu-list">
            {cluster.nodeTypes.map((type) => (
              <NodeTypeCard key={type.nodes.join(',')} type={type} nodes={nodes} />
            ))}
          </ul>
        </section>
        <section aria-labelledby={accountsId}>
          <h4 id={accountsId} className="section-title">
            {t('cluster.accounts')}
            <span className="section-count mono">{cluster.user.name}</span>
          </h4>
          <Accounts cluster={cluster} />
        </section>
      </div>
    </section>
  );
}
