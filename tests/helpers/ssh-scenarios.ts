// The shape of one ssh_config scenario of the differential test (tests/fixtures/ssh-config-scenarios) and how it is
// laid out on disk: its own local user, home, host name and hosts file (nss_wrapper), its files under that home,
// and the environment ssh and Servelab run with.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createNssIdentity, type NssIdentity } from './nss-wrapper';

export type ScenarioSplit = 'dev' | 'heldout';

export interface ScenarioSource {
  /** The practice or document the scenarios come from. */
  title: string;
  /** Whole sources go to one side. */
  split: ScenarioSplit;
}

export interface SshScenario {
  id: string;
  /** A key of SCENARIO_SOURCES. */
  source: string;
  /** What the scenario checks, in a few words. */
  what: string;
  /**
   * Files under the local user's home (`.ssh/config` is the user config), path → content. `@HOME@` and `@ROOT@`
   * (the scenario's temp root) are replaced in contents, args and env values.
   */
  files?: Record<string, string>;
  /** ssh options before the destination (-F, -l, -p, -i, -J), passed the same way to `servelab ssh resolve`. */
  args?: string[];
  destination: string;
  /** Added to (or replacing) PATH, HOME=<home>, USER, LOGNAME, SHELL=/bin/sh, LANG=C.UTF-8. */
  env?: Record<string, string>;
  /** Hosts-file lines (`ADDRESS CANONICAL [ALIAS…]`); nothing else resolves. */
  hosts?: string[];
  /** Default `alice`. */
  localUser?: string;
  /** Default `ws1.office.example`. */
  localHostname?: string;
  /** Whether ssh accepts the config for this destination (checked against ssh itself). */
  accepted: boolean;
}

export const DEFAULT_LOCAL_USER = 'alice';
export const DEFAULT_LOCAL_HOSTNAME = 'ws1.office.example';

export interface LaidOutScenario {
  scenario: SshScenario;
  identity: NssIdentity;
  args: string[];
  destination: string;
  env: Record<string, string>;
  cwd: string;
}

export async function layOutScenario(scenario: SshScenario): Promise<LaidOutScenario> {
  const identity = await createNssIdentity({
    user: scenario.localUser ?? DEFAULT_LOCAL_USER,
    hostname: scenario.localHostname ?? DEFAULT_LOCAL_HOSTNAME,
    hosts: scenario.hosts ?? [],
    // Short: ssh refuses a ControlPath of 108 bytes or more, and these paths end up in some.
    prefix: `sshdiff-${scenario.id.slice(0, 20)}-`,
  });
  const fill = (text: string) => text.replaceAll('@HOME@', identity.home).replaceAll('@ROOT@', identity.root);
  await mkdir(join(identity.home, '.ssh'), { recursive: true, mode: 0o700 });
  for (const [path, content] of Object.entries(scenario.files ?? {})) {
    const file = join(identity.home, path);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, fill(content), { mode: 0o600 });
    // ssh refuses a config others may write; keys must be private too.
    await chmod(file, 0o600);
  }
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    HOME: identity.home,
    USER: identity.user,
    LOGNAME: identity.user,
    SHELL: '/bin/sh',
    LANG: 'C.UTF-8',
    ...Object.fromEntries(Object.entries(scenario.env ?? {}).map(([name, value]) => [name, fill(value)])),
    ...identity.env,
  };
  return { scenario, identity, args: (scenario.args ?? []).map(fill), destination: scenario.destination, env, cwd: identity.home };
}
