import { measuredTitle, workloadOfProvenance } from '../../../../shared/results/measured-title';
import { getAdapter } from '../../../../shared/engines';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { t } from '../../i18n';
import { workloadDescription } from '../studies/study-words';

/**
 * A result's title in the app's language. A measured run's title is made from its workload, engine, model and box
 * (`measured-result.ts`, in English): while the stored title is still exactly that, it is worded again from the same
 * facts; a title that says anything else (an import's file name, one written by hand) is shown as it is.
 */
export function resultTitle(entry: ResultEntry): string {
  const p = entry.result.provenance;
  if (entry.kind !== 'measured' || !p?.engine || !p.engineVersion || !p.model || !p.host) return entry.title;
  const workload = workloadOfProvenance(p);
  if (!workload) return entry.title;
  if (measuredTitle({ workload, engine: p.engine, version: p.engineVersion, model: p.model, host: p.host }) !== entry.title) return entry.title;
  return t('results.measuredTitle', { workload: workloadDescription(workload), engine: getAdapter(p.engine).displayName, version: p.engineVersion, model: p.model, host: p.host });
}
