// The names of every call and event between the UI and the core. Kept free of any import so that the
// sandboxed preload can bundle it alone; `contract.ts` attaches the schemas and a test keeps the two in step.

export const CALL_NAMES = [
  'app:info',
  'app:openRequests',
  'hosts:list',
  'hosts:add',
  'hosts:update',
  'hosts:remove',
  'hosts:sshConfigAliases',
  'hosts:resolve',
  'hosts:states',
  'hosts:connect',
  'hosts:disconnect',
  'hosts:connectionLog',
  'hosts:inventory',
  'hosts:cluster',
  'hosts:acceptHostKey',
  'hosts:replaceHostKey',
  'hosts:restoreDemoLab',
  'prompts:pending',
  'prompts:answer',
  'prompts:cancel',
  'engines:list',
  'engines:install',
  'engines:remove',
  'servers:launch',
  'servers:stop',
  'servers:list',
  'servers:onBox',
  'secrets:list',
  'secrets:set',
  'secrets:remove',
  'models:prefetch',
  'results:list',
  'results:import',
  'results:remove',
  'datasets:list',
  'datasets:fetch',
  'bench:run',
  'bench:cancel',
  'studies:create',
  'studies:open',
  'studies:save',
  'studies:plan',
  'studies:run',
  'studies:trustCheck',
  'studies:cancel',
  'studies:report',
  'studies:export',
  'studies:examples',
  'studies:fromExample',
  'studies:fromGuide',
  'studies:recent',
  'studies:trialLogs',
  'studies:gpuMemory',
  'studies:saveAs',
  'studies:rerun',
  'studies:rerunOriginal',
  'dialogs:saveFile',
  'dialogs:openFile',
] as const;

export const EVENT_NAMES = [
  'hosts:changed',
  'hosts:state',
  'hosts:log',
  'prompts:request',
  'prompts:settled',
  'engines:progress',
  'engines:log',
  'engines:done',
  'servers:log',
  'servers:state',
  'models:progress',
  'models:done',
  'bench:progress',
  'bench:log',
  'bench:done',
  'results:changed',
  'datasets:progress',
  'studies:state',
  'studies:phase',
  'studies:log',
  'studies:gpu',
  'studies:decision',
  'app:command',
  'app:openRequested',
] as const;

export type CallName = (typeof CALL_NAMES)[number];
export type EventName = (typeof EVENT_NAMES)[number];

/** Splits `domain:action` into its two parts; the preload builds `window.servelab[domain][action]` from it. */
export function splitCallName(name: string): { domain: string; action: string } {
  const at = name.indexOf(':');
  return { domain: name.slice(0, at), action: name.slice(at + 1) };
}

/** The single IPC channel on which main pushes contract events to the preload. */
export const EVENT_CHANNEL = 'servelab:event';
