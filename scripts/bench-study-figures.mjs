// The study bench's figures, read from a finished project's journal (`journal.jsonl`) and state: pure, so the
// arithmetic is tested (tests/unit/bench-study-figures.test.ts) apart from the timing it is fed.

/** Journal lines as objects, with `t` the line's time in seconds. */
export function parseJournal(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const event = JSON.parse(line);
      return { ...event, t: Date.parse(event.at) / 1000 };
    });
}

/**
 * One pass of the study (the grid, from its first launch to its decision): its wall time, each server's launch seconds (`launching` to
 * `server-ready`) and each trial's benchmark seconds (its warm-up, then `measuring` to the trial's end), and the ideal
 * wall time: every GPU slot busy launching or benchmarking, nothing else, (Σ benchmark + Σ launch) ÷ slots.
 * `trials` are the project's trials (for the warm-up seconds the state keeps); `stageId` picks the pass.
 */
export function passFigures(events, trials, { stageId, slots }) {
  const inPass = new Set(trials.filter((t) => t.stageId === stageId).map((t) => t.id));
  const planned = events.find((e) => e.event === 'planned' && e.stageId === stageId);
  const decided = events.find((e) => e.event === 'decision' && e.stageId === stageId);
  if (!planned || !decided) throw new Error(`the journal has no planned and decided pass "${stageId}"`);
  const launches = events.filter((e) => e.event === 'launching' && e.trials.some((id) => inPass.has(id)));
  // From the pass's first launch: checking the model's weights on each box before it (a download on a fresh box)
  // is setup, like the engine installs.
  const started = launches[0] ?? planned;
  const launchSeconds = [];
  const servers = [];
  for (const launch of launches) {
    const launched = events.find((e) => e.event === 'server-launched' && e.serverKey === launch.serverKey && e.t >= launch.t);
    const ready = launched && events.find((e) => e.event === 'server-ready' && e.serverId === launched.serverId);
    const stopped = launched && events.find((e) => e.event === 'server-stopped' && e.serverId === launched.serverId);
    if (!ready || !stopped) throw new Error(`server ${launch.serverKey} has no ready and stopped lines`);
    launchSeconds.push(ready.t - launch.t);
    servers.push({ serverKey: launch.serverKey, hostId: launch.hostId, gpus: launch.gpus, from: launch.t, ready: ready.t, to: stopped.t });
  }
  const benchSeconds = [];
  for (const id of inPass) {
    const measuring = events.find((e) => e.event === 'measuring' && e.id === id);
    const ended = measuring && events.find((e) => e.event === 'trial' && e.id === id && (e.status === 'done' || e.status === 'failed') && e.t >= measuring.t);
    if (!ended) throw new Error(`trial ${id} has no measured run in the journal`);
    const warmup = trials.find((t) => t.id === id)?.warmup?.seconds ?? 0;
    benchSeconds.push(warmup + (ended.t - measuring.t));
  }
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const wallSeconds = decided.t - started.t;
  const idealSeconds = (sum(benchSeconds) + sum(launchSeconds)) / slots;
  // A server's whole hold on its GPUs, launch to stop: what one trial costs in wall time on its slot.
  const heldSeconds = servers.map((s) => s.to - s.from);
  return { wallSeconds, idealSeconds, ratio: wallSeconds / idealSeconds, launchSeconds, benchSeconds, heldSeconds, servers };
}

/** How a launch reason (the runner's `launching` line) reads in the bench's output. */
export function reasonWords(reason) {
  if (!reason) return 'no reason recorded (a journal written before launches carried one)';
  switch (reason.kind) {
    case 'first':
      return 'first launch';
    case 'rerun-interrupted':
      return `trials left unfinished by an earlier run, run again: ${reason.trials.join(', ')}`;
    case 'later-step':
      return `trials of a later step (${reason.stageIds.join(', ')}); it served ${reason.earlier.join(', ')} before, and the runner stops a step's servers when the step ends`;
    default:
      return `unknown reason ${JSON.stringify(reason)}`;
  }
}

/**
 * Every launch of the study against its distinct server configurations: a relaunch is a second (or later) launch of
 * the same configuration, listed with the reason the runner journalled for it.
 */
export function launchFigures(events, trials) {
  const launches = events.filter((e) => e.event === 'launching');
  const configs = new Set(launches.map((e) => e.serverKey));
  const seen = new Set();
  const relaunches = [];
  for (const launch of launches) {
    if (seen.has(launch.serverKey)) {
      const label = trials.find((t) => t.serverKey === launch.serverKey && launch.trials.includes(t.id))?.label ?? launch.serverKey;
      relaunches.push({ serverKey: launch.serverKey, label, trials: launch.trials, reason: launch.reason, words: reasonWords(launch.reason) });
    }
    seen.add(launch.serverKey);
  }
  return { launches: launches.length, configs: configs.size, relaunches };
}
