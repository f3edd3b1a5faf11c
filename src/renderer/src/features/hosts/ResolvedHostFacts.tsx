import type { ReactNode } from 'react';
import type { ResolvedHostView } from '../../../../shared/model/ssh-resolve';
import { formattingLocale, t } from '../../i18n';
import { hostPort } from './format';

type Origin = ResolvedHostView['origins'][string];

/**
 * The ssh_config(5) keyword behind each row, shown under its name so a value can be found in the config. Keywords
 * are the same in every language, like the CLI flags the glossary in `i18n/tr/index.ts` leaves untranslated.
 */
const KEYWORD = {
  hostname: 'HostName',
  user: 'User',
  port: 'Port',
  proxyJump: 'ProxyJump',
  proxyCommand: 'ProxyCommand',
  identityFiles: 'IdentityFile',
  identitiesOnly: 'IdentitiesOnly',
  identityAgent: 'IdentityAgent',
  certificateFiles: 'CertificateFile',
  hostKeyAlias: 'HostKeyAlias',
  strictHostKeyChecking: 'StrictHostKeyChecking',
  userKnownHostsFiles: 'UserKnownHostsFile',
  globalKnownHostsFiles: 'GlobalKnownHostsFile',
  connectTimeout: 'ConnectTimeout',
  connectionAttempts: 'ConnectionAttempts',
  serverAliveInterval: 'ServerAliveInterval',
  serverAliveCountMax: 'ServerAliveCountMax',
} as const;

/** "user@host:port", an IPv6 host in brackets as ssh prints it. */
export function resolvedAddress({ user, hostname, port }: { user: string; hostname: string; port: number }): string {
  return `${user}@${hostPort(hostname, port)}`;
}

/** A number of seconds in the UI's language; the view allows a fraction, so up to three decimals are kept. */
function secondsValue(value: number): string {
  return new Intl.NumberFormat(formattingLocale(), { maximumFractionDigits: 3 }).format(value);
}

/** Where a value was set, as the core gave the path: the renderer cannot know the user's home to shorten it. */
function OriginNote({ origin, keyword }: { origin: Origin | undefined; keyword?: string }) {
  if (!origin) return null;
  return (
    <span className="resolved-origin">
      {/* Spaces, so the value, the keyword and the place read as separate words to assistive technology and in copied text. */}{' '}
      {keyword && <span className="mono">{keyword} </span>}
      <span className="visually-hidden">{t('resolved.origin')} </span>
      <span className="mono">{`${origin.file}:${origin.line}`}</span>
    </span>
  );
}

function Value({ origin, mono = false, children }: { origin?: Origin | undefined; mono?: boolean; children: ReactNode }) {
  return (
    <span className="resolved-value">
      <span className={mono ? 'mono resolved-text' : 'resolved-text'}>{children}</span>
      <OriginNote origin={origin} />
    </span>
  );
}

function Row({ term, keyword, children }: { term: string; keyword: string; children: ReactNode }) {
  return (
    <div className="resolved-row">
      <dt>
        {term}
        <span className="fact-sub mono">{keyword}</span>
      </dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The origin of a whole list (one line that set all of it), under the list. */
function ListOrigin({ origin }: { origin: Origin | undefined }) {
  if (!origin) return null;
  return (
    <span className="resolved-value resolved-list-origin">
      <OriginNote origin={origin} />
    </span>
  );
}

/** A list field in order, each item with its own origin (`field#i`) where known. */
function FileList({ files, field, origins }: { files: string[]; field: string; origins: ResolvedHostView['origins'] }) {
  if (files.length === 0) return <Value origin={origins[field]}>{t('resolved.none')}</Value>;
  return (
    <>
      <ol className="resolved-list">
        {files.map((file, index) => (
          <li key={`${index}-${file}`}>
            <Value mono origin={origins[`${field}#${index}`]}>
              {file}
            </Value>
          </li>
        ))}
      </ol>
      <ListOrigin origin={origins[field]} />
    </>
  );
}

/** ProxyJump hops outermost first, each with the keys it is reached with; or the ProxyCommand; or a direct connection. */
function Route({ view }: { view: ResolvedHostView }) {
  const { origins } = view;
  if (view.proxyJump.length > 0) {
    return (
      <Row term={t('resolved.route')} keyword={KEYWORD.proxyJump}>
        <ol className="resolved-hops">
          {view.proxyJump.map((hop, index) => (
            <li key={`${index}-${hop.alias}`} className="resolved-hop">
              <Value mono origin={origins[`proxyJump#${index}`]}>
                {resolvedAddress(hop)}
              </Value>
              {hop.alias !== hop.hostname && <span className="resolved-hop-alias">{t('host.fact.alias', { alias: hop.alias })}</span>}
              <div className="resolved-hop-keys">
                <span className="resolved-hop-keys-label">{t('resolved.hop.keys')}</span>
                {hop.identityFiles.length === 0 ? (
                  <span className="muted">{t('resolved.hop.noKeys')}</span>
                ) : (
                  <ol className="resolved-list">
                    {hop.identityFiles.map((file, fileIndex) => (
                      <li key={`${fileIndex}-${file}`} className="mono">
                        {file}
                      </li>
                    ))}
                  </ol>
                )}
              </div>
            </li>
          ))}
        </ol>
        {/* One ProxyJump line sets the whole chain. */}
        <ListOrigin origin={origins.proxyJump} />
        <p className="resolved-note">{t('resolved.route.jumpNote')}</p>
      </Row>
    );
  }
  if (view.proxyCommand !== null) {
    return (
      <Row term={t('resolved.route')} keyword={KEYWORD.proxyCommand}>
        <Value mono origin={origins.proxyCommand}>
          {view.proxyCommand}
        </Value>
      </Row>
    );
  }
  return (
    <Row term={t('resolved.route')} keyword={`${KEYWORD.proxyJump} · ${KEYWORD.proxyCommand}`}>
      <Value>{t('resolved.route.direct')}</Value>
    </Row>
  );
}

function keepalive(view: ResolvedHostView): string {
  // 0 is ssh's "send none"; Servelab then keeps the connection alive itself (src/core/ssh/ssh-target.ts: 15 s).
  if (view.serverAliveInterval <= 0) return t('resolved.serverAlive.own');
  return t('resolved.serverAlive.every', {
    interval: secondsValue(view.serverAliveInterval),
    count: view.serverAliveCountMax,
  });
}

/** Every value Servelab will connect with, each beside the file and line that set it where the core knows one. */
export function ResolvedHostFacts({ view, label }: { view: ResolvedHostView; label: string }) {
  const { origins } = view;
  return (
    <dl className="resolved-facts" aria-label={t('resolved.values', { label })}>
      <Row term={t('resolved.user')} keyword={KEYWORD.user}>
        <Value mono origin={origins.user}>
          {view.user}
        </Value>
      </Row>
      <Row term={t('resolved.hostname')} keyword={KEYWORD.hostname}>
        <Value mono origin={origins.hostname}>
          {view.hostname}
        </Value>
      </Row>
      <Row term={t('resolved.port')} keyword={KEYWORD.port}>
        <Value mono origin={origins.port}>
          {view.port}
        </Value>
      </Row>
      <Route view={view} />
      <Row term={t('resolved.identityFiles')} keyword={KEYWORD.identityFiles}>
        <FileList files={view.identityFiles} field="identityFiles" origins={origins} />
        {view.identityFiles.length > 0 && <p className="resolved-note">{t('resolved.identityFiles.note')}</p>}
      </Row>
      <Row term={t('resolved.identitiesOnly')} keyword={KEYWORD.identitiesOnly}>
        <Value origin={origins.identitiesOnly}>{view.identitiesOnly ? t('resolved.yes') : t('resolved.no')}</Value>
      </Row>
      <Row term={t('resolved.identityAgent')} keyword={KEYWORD.identityAgent}>
        {view.identityAgent === 'none' ? (
          <Value origin={origins.identityAgent}>{t('resolved.identityAgent.none')}</Value>
        ) : (
          <Value mono origin={origins.identityAgent}>
            {view.identityAgent}
          </Value>
        )}
      </Row>
      <Row term={t('resolved.certificateFiles')} keyword={KEYWORD.certificateFiles}>
        <FileList files={view.certificateFiles} field="certificateFiles" origins={origins} />
      </Row>
      <Row term={t('resolved.hostKeyAlias')} keyword={KEYWORD.hostKeyAlias}>
        {view.hostKeyAlias === null ? (
          <Value origin={origins.hostKeyAlias}>{t('resolved.none')}</Value>
        ) : (
          <Value mono origin={origins.hostKeyAlias}>
            {view.hostKeyAlias}
          </Value>
        )}
      </Row>
      <Row term={t('resolved.strictHostKeyChecking')} keyword={KEYWORD.strictHostKeyChecking}>
        <Value origin={origins.strictHostKeyChecking}>{t(`resolved.strict.${view.strictHostKeyChecking}`)}</Value>
      </Row>
      <Row term={t('resolved.userKnownHostsFiles')} keyword={KEYWORD.userKnownHostsFiles}>
        <FileList files={view.userKnownHostsFiles} field="userKnownHostsFiles" origins={origins} />
      </Row>
      <Row term={t('resolved.globalKnownHostsFiles')} keyword={KEYWORD.globalKnownHostsFiles}>
        <FileList files={view.globalKnownHostsFiles} field="globalKnownHostsFiles" origins={origins} />
        <p className="resolved-note">{t('resolved.knownHosts.note')}</p>
      </Row>
      <Row term={t('resolved.connectTimeout')} keyword={KEYWORD.connectTimeout}>
        <Value origin={origins.connectTimeout}>{view.connectTimeout === null ? t('resolved.connectTimeout.default') : t('resolved.seconds', { value: secondsValue(view.connectTimeout) })}</Value>
      </Row>
      <Row term={t('resolved.connectionAttempts')} keyword={KEYWORD.connectionAttempts}>
        <Value origin={origins.connectionAttempts}>{view.connectionAttempts}</Value>
      </Row>
      <Row term={t('resolved.serverAlive')} keyword={`${KEYWORD.serverAliveInterval} · ${KEYWORD.serverAliveCountMax}`}>
        <span className="resolved-value">
          <span className="resolved-text">{keepalive(view)}</span>
          {/* Two keywords make this value: each origin is named by its keyword once both are known. */}
          <OriginNote origin={origins.serverAliveInterval} keyword={origins.serverAliveCountMax ? KEYWORD.serverAliveInterval : undefined} />
          <OriginNote origin={origins.serverAliveCountMax} keyword={KEYWORD.serverAliveCountMax} />
        </span>
      </Row>
    </dl>
  );
}
