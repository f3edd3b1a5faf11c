// Whether a benchmark client can produce a workload's arrivals: asked of the vllm-bench flag table, apart from
// arrival.ts so that naming or describing a workload does not load the flag tables.
import { ServelabError } from '../contract/errors';
import { flagTableAt, tableVersions } from '../engines/flag-tables';
import { flagSpecOf } from '../engines/flag-syntax';
import { compareVersions, isVersion } from '../engines/version';
import { CONSTANT_RATE_SINCE, type ArrivalFields } from './arrival';

const RAMP_FLAGS = ['--ramp-up-strategy', '--ramp-up-start-rps', '--ramp-up-end-rps'] as const;

/** Whether `vllm bench serve` at `version` has the flag, by the flag table; a version older than every table is not known to. */
export function benchHasFlag(version: string, flag: string): boolean {
  const oldest = tableVersions('vllm-bench')[0] as string;
  if (!isVersion(version) || compareVersions(version, oldest) < 0) return false;
  return flagSpecOf(flagTableAt('vllm-bench', version), flag) !== undefined;
}

/** Why the client at `clientVersion` cannot produce this workload's arrivals, in English; undefined when it can. */
export function arrivalRefusal(w: ArrivalFields, clientVersion: string): string | undefined {
  if (w.rampUp) {
    const missing = RAMP_FLAGS.filter((f) => !benchHasFlag(clientVersion, f));
    if (missing.length > 0) {
      const since = tableVersions('vllm-bench')[0] as string;
      return `vllm bench serve ${clientVersion} has no ${missing.join(', ')}: a ramped arrival needs benchmark client ${since} or later.`;
    }
  }
  if (w.burstiness === 'inf' && (w.requestRate !== undefined || w.rampUp) && !(isVersion(clientVersion) && compareVersions(clientVersion, CONSTANT_RATE_SINCE) >= 0)) {
    return (
      `vllm bench serve ${clientVersion} cannot send at a constant rate: --burstiness inf works from ${CONSTANT_RATE_SINCE} on ` +
      `(${clientVersion} sends every request at once). Choose benchmark client ${CONSTANT_RATE_SINCE} or later, or Gamma arrivals with a high burstiness ` +
      `(burstiness 100 spaces requests with a CV of 0.1).`
    );
  }
  return undefined;
}

/** Throws BAD_INPUT with `arrivalRefusal`'s words, on the workload's field, when the client cannot produce the arrivals. */
export function assertArrivalSupported(w: ArrivalFields, clientVersion: string): void {
  const refusal = arrivalRefusal(w, clientVersion);
  if (refusal !== undefined) throw new ServelabError('BAD_INPUT', refusal, { issues: [{ path: w.rampUp ? 'workload.rampUp' : 'workload.burstiness', message: refusal }] });
}
