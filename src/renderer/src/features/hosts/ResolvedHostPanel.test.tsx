import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedHostView } from '../../../../shared/model/ssh-resolve';
import { setLocale } from '../../i18n';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { HostCard } from './HostCard';

afterEach(() => {
  cleanup();
  setLocale('en');
});

const HOST = makeHost({ alias: 'h200', identityFile: null, user: null, port: null });
const CONFIG = '/home/ml/.ssh/config';

/** A host behind two jump hosts, its values from the config and the defaults, as the core answers hosts:resolve. */
const THROUGH_JUMPS: ResolvedHostView = {
  hostname: '10.70.0.12',
  port: 2222,
  user: 'ml',
  identityFiles: ['/home/ml/.ssh/h200_ed25519', '/home/ml/.ssh/id_rsa'],
  identitiesOnly: true,
  identityAgent: '/run/user/1000/ssh-agent.socket',
  certificateFiles: ['/home/ml/.ssh/h200_ed25519-cert.pub'],
  proxyJump: [
    { alias: 'gw', user: 'ops', hostname: 'gw.example.net', port: 22, identityFiles: ['/home/ml/.ssh/gw_ed25519'] },
    { alias: 'bastion', user: 'ml', hostname: 'bastion.lab', port: 2200, identityFiles: [] },
  ],
  proxyCommand: null,
  hostKeyAlias: 'h200.lab',
  strictHostKeyChecking: 'no',
  userKnownHostsFiles: ['/home/ml/.ssh/known_hosts', '/home/ml/.ssh/known_hosts2'],
  globalKnownHostsFiles: ['/etc/ssh/ssh_known_hosts'],
  connectTimeout: 10,
  connectionAttempts: 3,
  serverAliveInterval: 0,
  serverAliveCountMax: 3,
  source: 'ssh -G',
  origins: {
    hostname: { file: CONFIG, line: 2 },
    user: { file: CONFIG, line: 3 },
    port: { file: CONFIG, line: 4 },
    'identityFiles#0': { file: CONFIG, line: 5 },
    proxyJump: { file: CONFIG, line: 6 },
    strictHostKeyChecking: { file: '/etc/ssh/ssh_config.d/10-lab.conf', line: 1 },
    connectTimeout: { file: CONFIG, line: 7 },
  },
  warnings: ['StrictHostKeyChecking no is treated as ask: Servelab never accepts an unknown host key silently.'],
};

/** The same host reached through a ProxyCommand with no agent, resolved without OpenSSH. */
const THROUGH_COMMAND: ResolvedHostView = {
  ...THROUGH_JUMPS,
  proxyJump: [],
  proxyCommand: 'aws ssm start-session --target i-0abc --document-name AWS-StartSSHSession --parameters portNumber=22',
  identityAgent: 'none',
  certificateFiles: [],
  hostKeyAlias: null,
  strictHostKeyChecking: 'accept-new',
  connectTimeout: null,
  serverAliveInterval: 30,
  serverAliveCountMax: 5,
  source: 'built-in',
  origins: {
    proxyCommand: { file: CONFIG, line: 9 },
    serverAliveInterval: { file: CONFIG, line: 10 },
    serverAliveCountMax: { file: CONFIG, line: 11 },
  },
  warnings: [],
};

const BAD_CONFIG = { code: 'SSH_CONFIG_INVALID', message: `${CONFIG}: line 3: Bad configuration option: usekeychain` } as const;

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function renderCard(api: FakeApi, host = HOST) {
  api.handle('hosts:list', () => [host]);
  api.handle('prompts:pending', () => []);
  const rendered = renderWithStore(<HostCard hostId={host.id} />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

async function openResolved(label = HOST.label) {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: `Resolved settings of ${label}` }));
  });
  return screen.getByRole('region', { name: 'Resolved as' });
}

const resolveCalls = (api: FakeApi) => api.calls.filter((c) => c.name === 'hosts:resolve');

/** The value cell of the row whose term starts with `term`. */
function row(panel: HTMLElement, term: string): HTMLElement {
  const dt = within(panel)
    .getAllByRole('term')
    .find((el) => el.textContent?.startsWith(term));
  if (!dt?.nextElementSibling) throw new Error(`no row ${term}`);
  return dt.nextElementSibling as HTMLElement;
}

describe('ResolvedHostPanel', () => {
  it('resolves the host when opened and shows every value with the file and line that set it', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => THROUGH_JUMPS });
    await renderCard(api);
    expect(resolveCalls(api)).toHaveLength(0);
    const panel = await openResolved();
    expect(resolveCalls(api).map((c) => c.input)).toEqual([{ hostId: HOST.id }]);

    expect(within(panel).getByText('Resolved by OpenSSH (ssh -G)')).toBeTruthy();
    expect(within(panel).getByText('ml@10.70.0.12:2222')).toBeTruthy();
    expect(row(panel, 'User').textContent).toBe(`ml set at ${CONFIG}:3`);
    expect(row(panel, 'Host name').textContent).toBe(`10.70.0.12 set at ${CONFIG}:2`);
    expect(row(panel, 'Port').textContent).toBe(`2222 set at ${CONFIG}:4`);

    const route = row(panel, 'Route');
    const hops = within(route).getAllByRole('listitem').filter((li) => li.classList.contains('resolved-hop'));
    expect(hops.map((hop) => hop.textContent)).toEqual([
      'ops@gw.example.net:22alias gwKeys/home/ml/.ssh/gw_ed25519',
      'ml@bastion.lab:2200alias bastionKeysNo identity files',
    ]);
    // The ProxyJump line set the whole chain, so its origin is the chain's, not the first hop's.
    expect(route.querySelector('.resolved-list-origin')?.textContent).toBe(` set at ${CONFIG}:6`);

    const keys = within(row(panel, 'Identity files')).getAllByRole('listitem');
    expect(keys.map((li) => li.textContent)).toEqual([`/home/ml/.ssh/h200_ed25519 set at ${CONFIG}:5`, '/home/ml/.ssh/id_rsa']);
    expect(within(row(panel, 'Identity files')).getByText('Tried in this order; files that do not exist are skipped.')).toBeTruthy();
    expect(row(panel, 'Only these identity files').textContent).toBe('Yes');
    expect(row(panel, 'Agent socket').textContent).toBe('/run/user/1000/ssh-agent.socket');
    expect(row(panel, 'Certificate files').textContent).toBe('/home/ml/.ssh/h200_ed25519-cert.pub');
    expect(row(panel, 'Host key alias').textContent).toBe('h200.lab');
    expect(row(panel, 'Host key checking').textContent).toBe(
      'no: treated as ask, since Servelab never accepts a host key silently set at /etc/ssh/ssh_config.d/10-lab.conf:1',
    );
    expect(within(row(panel, 'User known_hosts files')).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      '/home/ml/.ssh/known_hosts',
      '/home/ml/.ssh/known_hosts2',
    ]);
    expect(within(row(panel, 'System-wide known_hosts files')).getByText('/etc/ssh/ssh_known_hosts')).toBeTruthy();
    expect(row(panel, 'Connect timeout').textContent).toBe(`10 s set at ${CONFIG}:7`);
    expect(row(panel, 'Connection attempts').textContent).toBe('3');
    expect(row(panel, 'Keepalive').textContent).toBe('Servelab’s own keepalive (every 15 s)');

    const warnings = within(panel).getByRole('note', { name: 'Warnings' });
    expect(within(warnings).getByText(THROUGH_JUMPS.warnings[0]!)).toBeTruthy();
  });

  it('shows a ProxyCommand, no agent, the system’s timeout and ssh’s keepalive with both keywords’ origins', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => THROUGH_COMMAND });
    await renderCard(api);
    const panel = await openResolved();
    expect(within(panel).getByText('Resolved by built-in reader')).toBeTruthy();
    expect(row(panel, 'Route').textContent).toBe(`${THROUGH_COMMAND.proxyCommand} set at ${CONFIG}:9`);
    expect(row(panel, 'Route').previousElementSibling?.textContent).toBe('RouteProxyCommand');
    expect(row(panel, 'Agent socket').textContent).toBe('None: no agent is used');
    expect(row(panel, 'Certificate files').textContent).toBe('None');
    expect(row(panel, 'Host key alias').textContent).toBe('None');
    expect(row(panel, 'Host key checking').textContent).toBe(
      'accept-new: a new host key is trusted on the first connection; a changed one is still refused',
    );
    expect(row(panel, 'Connect timeout').textContent).toBe('The system’s default');
    expect(row(panel, 'Keepalive').textContent).toBe(
      `Every 30 s; the connection is dropped after 5 unanswered ServerAliveInterval set at ${CONFIG}:10 ServerAliveCountMax set at ${CONFIG}:11`,
    );
    expect(within(panel).queryByRole('note', { name: 'Warnings' })).toBeNull();
  });

  it('says a direct connection has neither jump host nor ProxyCommand', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => ({ ...THROUGH_JUMPS, proxyJump: [] }) });
    await renderCard(api);
    const panel = await openResolved();
    expect(row(panel, 'Route').textContent).toBe('Direct: no jump host and no ProxyCommand');
  });

  it('shows a bad config as an error with ssh’s own words, and the values once Refresh resolves it', async () => {
    let answer: () => ResolvedHostView = () => coreError(BAD_CONFIG);
    const api = createFakeApi({ 'hosts:resolve': () => answer() });
    await renderCard(api);
    const panel = await openResolved();
    const alert = within(panel).getByRole('alert');
    expect(within(alert).getByText('The SSH config has an error')).toBeTruthy();
    expect(within(alert).getByText(BAD_CONFIG.message)).toBeTruthy();
    expect(within(alert).getByText('Error code SSH_CONFIG_INVALID')).toBeTruthy();
    expect(within(panel).queryByRole('term')).toBeNull();

    answer = () => THROUGH_JUMPS;
    await act(async () => {
      fireEvent.click(within(panel).getByRole('button', { name: 'Refresh the resolved settings of h200-lab' }));
    });
    expect(within(panel).queryByRole('alert')).toBeNull();
    expect(row(panel, 'User').textContent).toBe(`ml set at ${CONFIG}:3`);
  });

  it('names any other failure with the host and the core’s message', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => coreError({ code: 'NOT_FOUND', message: 'No host with id host-1.' }) });
    await renderCard(api);
    const panel = await openResolved();
    const alert = within(panel).getByRole('alert');
    expect(within(alert).getByText('Could not resolve h200-lab')).toBeTruthy();
    expect(within(alert).getByText('No host with id host-1.')).toBeTruthy();
  });

  it('says it is resolving while the core answers, keeps the last values during Refresh, then shows the new ones', async () => {
    let pending = deferred<ResolvedHostView>();
    const api = createFakeApi({ 'hosts:resolve': () => pending.promise });
    await renderCard(api);
    const panel = await openResolved();
    expect(within(panel).getByRole('status').textContent).toBe('Resolving the host…');
    expect(panel.getAttribute('aria-busy')).toBe('true');
    await act(async () => pending.resolve(THROUGH_JUMPS));
    expect(within(panel).getByRole('status').textContent).toBe('');
    expect(panel.getAttribute('aria-busy')).toBe('false');

    pending = deferred<ResolvedHostView>();
    const refresh = within(panel).getByRole('button', { name: 'Refresh the resolved settings of h200-lab' });
    await act(async () => {
      fireEvent.click(refresh);
    });
    expect(within(panel).getByRole('status').textContent).toBe('Resolving again…');
    expect(refresh.getAttribute('aria-disabled')).toBe('true');
    // A second press while the first runs asks nothing more.
    await act(async () => {
      fireEvent.click(refresh);
    });
    expect(resolveCalls(api)).toHaveLength(2);
    expect(row(panel, 'User').textContent).toBe(`ml set at ${CONFIG}:3`);
    await act(async () => pending.resolve({ ...THROUGH_JUMPS, user: 'root', origins: {} }));
    expect(row(panel, 'User').textContent).toBe('root');
  });

  it('resolves again after the host was edited, and keeps only the newest answer', async () => {
    const answers = [deferred<ResolvedHostView>(), deferred<ResolvedHostView>()];
    let call = 0;
    const api = createFakeApi({ 'hosts:resolve': () => answers[call++]!.promise });
    await renderCard(api);
    const panel = await openResolved();
    const edited = { ...HOST, user: 'root', updatedAt: '2025-06-01T12:30:00.000Z' };
    await act(async () => api.emit('hosts:changed', { hosts: [edited] }));
    expect(resolveCalls(api)).toHaveLength(2);
    // The answer for the settings before the edit arrives last and is dropped.
    await act(async () => answers[1]!.resolve({ ...THROUGH_JUMPS, user: 'root', origins: {} }));
    await act(async () => answers[0]!.resolve(THROUGH_JUMPS));
    expect(row(panel, 'User').textContent).toBe('root');
  });

  it('is closed again with its button, and offered for saved SSH hosts only', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => THROUGH_JUMPS });
    await renderCard(api);
    const toggle = screen.getByRole('button', { name: 'Resolved settings of h200-lab' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await openResolved();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(document.getElementById(toggle.getAttribute('aria-controls')!)?.contains(screen.getByRole('region', { name: 'Resolved as' }))).toBe(true);
    fireEvent.click(toggle);
    expect(screen.queryByRole('region', { name: 'Resolved as' })).toBeNull();
    cleanup();

    const demo = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' });
    await renderCard(createFakeApi(), demo);
    expect(screen.getByRole('article', { name: 'Demo lab' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Resolved settings of Demo lab' })).toBeNull();
  });

  it('speaks Turkish', async () => {
    const api = createFakeApi({ 'hosts:resolve': () => THROUGH_JUMPS });
    await renderCard(api);
    // The store picks the browser's language when it is made; the panel renders on opening, in the language then.
    setLocale('tr');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Resolved settings of h200-lab' }));
    });
    expect(screen.getByRole('button', { name: 'Çözümlenen ayarlar: h200-lab' }).getAttribute('aria-expanded')).toBe('true');
    const panel = screen.getByRole('region', { name: 'Çözümlenen ayarlar' });
    expect(within(panel).getByText('Çözümleyen: OpenSSH (ssh -G komutu)')).toBeTruthy();
    expect(row(panel, 'Kullanıcı').textContent).toBe(`ml tanımlandığı yer: ${CONFIG}:3`);
    expect(row(panel, 'Canlı tutma').textContent).toBe('Servelab’in kendi canlı tutma mesajları (15 sn’de bir)');
    expect(row(panel, 'Bağlantı zaman aşımı').textContent).toBe(`10 sn tanımlandığı yer: ${CONFIG}:7`);
  });
});
