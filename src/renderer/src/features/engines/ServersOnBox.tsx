import { useEffect, useId } from 'react';
import { getAdapter } from '../../../../shared/engines';
import { Badge } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore, type ServerOnBox } from '../../store';
import { formatDate } from './format';
import { modeLabel } from './ModeChoice';
import { StopChecks } from './StopChecks';

const NO_SERVERS: ServerOnBox[] = [];

function ServerRow({ hostId, row }: { hostId: string; row: ServerOnBox }) {
  // A server launched from this window is followed (and stopped) in the Launch server panel.
  const shownHere = useAppStore((s) => row.serverId in s.servers);
  const stopping = useAppStore((s) => s.boxStops[row.serverId]?.stopping ?? false);
  const stopServerOnBox = useAppStore((s) => s.stopServerOnBox);
  return (
    <tr>
      <td className="mono">{row.serverId}</td>
      <td>
        <span className="nowrap">
          {getAdapter(row.engine).displayName} {row.version}
        </span>
        <span className="server-mode">{modeLabel(row.mode ?? 'env')}</span>
      </td>
      <td className="mono">{row.model ?? t('engines.onBox.none')}</td>
      <td>{row.port}</td>
      <td>{formatDate(row.startedAt)}</td>
      <td>
        <Badge tone={row.running ? 'success' : 'neutral'} dot>
          {row.running ? t('engines.onBox.running') : t('engines.onBox.stopped')}
        </Badge>
      </td>
      <td>
        {row.running &&
          (shownHere ? (
            <span className="muted" title={t('engines.onBox.launchedHereHint')}>
              {t('engines.onBox.launchedHere')}
            </span>
          ) : (
            <button
              type="button"
              className="btn btn-danger-outline btn-small"
              aria-label={t('engines.onBox.stopOf', { serverId: row.serverId })}
              disabled={stopping}
              onClick={() => void stopServerOnBox(hostId, row.serverId)}
            >
              {stopping ? <Spinner size={12} /> : <Icon name="power" size={13} />}
              {t('engines.onBox.stop')}
            </button>
          ))}
      </td>
    </tr>
  );
}

function BoxStopOutcome({ serverId }: { serverId: string }) {
  const stop = useAppStore((s) => s.boxStops[serverId]);
  if (!stop || stop.stopping) return null;
  if (stop.error) {
    return (
      <p className="form-error" role="alert">
        {t('engines.onBox.stopFailed', { serverId, message: stop.error.message })}
      </p>
    );
  }
  return stop.result ? <StopChecks result={stop.result} title={t('engines.onBox.stopTitle', { serverId })} /> : null;
}

/**
 * Every server recorded on the box, whoever launched it (an earlier session, the command line), read again when
 * the page opens, the host changes, after launches and stops, and on Refresh.
 */
export function ServersOnBox({ hostId }: { hostId: string }) {
  const list = useAppStore((s) => s.serversOnBox[hostId]);
  const load = useAppStore((s) => s.loadServersOnBox);
  const stoppedHere = useAppStore((s) => s.boxStops);
  const titleId = useId();

  useEffect(() => {
    void load(hostId);
  }, [hostId, load]);

  const items = list?.items ?? NO_SERVERS;
  const stopOutcomes = items.filter((row) => row.serverId in stoppedHere).map((row) => row.serverId);
  return (
    <section className="card engines-card" aria-labelledby={titleId}>
      <div className="engines-card-head">
        <h2 id={titleId} className="card-title">
          <Icon name="server" />
          {t('engines.onBox.title')}
        </h2>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void load(hostId)} disabled={list?.status === 'loading'}>
          {list?.status === 'loading' ? <Spinner size={12} /> : <Icon name="refresh" size={13} />}
          {t('engines.onBox.refresh')}
        </button>
      </div>
      {list?.status === 'failed' && (
        <p className="form-error" role="alert">
          {t('engines.onBox.loadFailed', { message: list.error?.message ?? '' })}
        </p>
      )}
      {items.length === 0 ? (
        <p className="muted">{list?.status === 'loaded' ? t('engines.onBox.empty') : t('engines.onBox.loading')}</p>
      ) : (
        <div className="engines-table-scroll">
          <table className="engines-table">
            <thead>
              <tr>
                <th scope="col">{t('engines.onBox.server')}</th>
                <th scope="col">{t('engines.onBox.engine')}</th>
                <th scope="col">{t('engines.onBox.model')}</th>
                <th scope="col">{t('engines.onBox.port')}</th>
                <th scope="col">{t('engines.onBox.started')}</th>
                <th scope="col">{t('engines.onBox.state')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('engines.onBox.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((row) => (
                <ServerRow key={row.serverId} hostId={hostId} row={row} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {stopOutcomes.map((serverId) => (
        <BoxStopOutcome key={serverId} serverId={serverId} />
      ))}
    </section>
  );
}
