import type { StateCreator } from 'zustand';
import type { CallOutput, ErrorInfo } from '../../../shared/contract';
import type { ResultEntry } from '../../../shared/results/result-entry';
import type { ApiClient } from '../api/client';
import { t } from '../i18n';
import { toErrorInfo } from './errors';
import type { LoadStatus } from './load-status';
import type { AppState } from './types';

export type ImportResultsOutput = CallOutput<'results:import'>;

export interface ResultsSlice {
  /** The results library as the core last listed it, oldest first. */
  results: ResultEntry[];
  resultsLoad: { status: LoadStatus; error: ErrorInfo | null };
  /** The entry whose details are open on the Results page. */
  selectedResultId: string | null;
  loadResults(): Promise<void>;
  /** Sends the files in as few calls as the link allows and merges the answers; throws the core's ServelabError. */
  /** `gpuCount`: the GPUs the measured server held, when the user gave it (a result file does not say). */
  importResultFiles(files: { name: string; text: string }[], gpuCount?: number): Promise<ImportResultsOutput>;
  /** Throws the core's ServelabError when nothing could be removed. */
  removeResults(ids: string[]): Promise<void>;
  selectResult(id: string | null): void;
  /** Opens the Results page with this entry's details. */
  showResult(id: string): void;
  /** results:changed: reloads the list if it was ever loaded. */
  applyResultsChanged(): void;
}


/**
 * What one results:import call may carry over the browser link: the core's WebSocket refuses messages above
 * 4 MiB, so files travel in batches below that, with room for the envelope.
 */
export const WS_IMPORT_BATCH_BYTES = 3.5 * 1024 * 1024;
/** The contract's cap on files per call. */
const FILES_PER_CALL = 10_000;

export interface ImportFile {
  name: string;
  text: string;
}

const encoder = new TextEncoder();

/** The bytes a file adds to the call as JSON. */
function encodedSize(file: ImportFile): number {
  return encoder.encode(JSON.stringify(file.name)).length + encoder.encode(JSON.stringify(file.text)).length + 20;
}

/**
 * Groups files into calls of at most `maxBytes` each (Infinity: one call); a file that alone exceeds the limit
 * is returned in `tooLarge` with its size, since no call could carry it.
 */
export function importBatches(files: ImportFile[], maxBytes: number): { batches: ImportFile[][]; tooLarge: { name: string; bytes: number }[] } {
  const batches: ImportFile[][] = [];
  const tooLarge: { name: string; bytes: number }[] = [];
  let current: ImportFile[] = [];
  let size = 0;
  for (const file of files) {
    const bytes = Number.isFinite(maxBytes) ? encodedSize(file) : 0;
    if (bytes > maxBytes) {
      tooLarge.push({ name: file.name, bytes });
      continue;
    }
    if (current.length > 0 && (size + bytes > maxBytes || current.length >= FILES_PER_CALL)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(file);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}

const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** The results library, mirrored from results:list and reloaded on results:changed. */
export function createResultsSlice(api: ApiClient): StateCreator<AppState, [], [], ResultsSlice> {
  return (set, get) => ({
    results: [],
    resultsLoad: { status: 'idle', error: null },
    selectedResultId: null,

    async loadResults() {
      set((s) => ({ resultsLoad: { status: 'loading', error: s.resultsLoad.error } }));
      try {
        const results = await api.call('results:list', {});
        set({ results, resultsLoad: { status: 'loaded', error: null } });
      } catch (e) {
        set({ resultsLoad: { status: 'failed', error: toErrorInfo(e) } });
      }
    },

    async importResultFiles(files, gpuCount) {
      const limit = api.kind === 'websocket' ? WS_IMPORT_BATCH_BYTES : Infinity;
      const { batches, tooLarge } = importBatches(files, limit);
      const out: ImportResultsOutput = {
        added: [],
        errors: tooLarge.map((f) => t('results.import.tooLargeForLink', { file: f.name, size: mib(f.bytes), limit: mib(limit) })),
        warnings: [],
      };
      try {
        for (const batch of batches) {
          const answer = await api.call('results:import', { files: batch, ...(gpuCount !== undefined ? { gpuCount } : {}) });
          out.added.push(...answer.added);
          out.errors.push(...answer.errors);
          out.warnings.push(...answer.warnings);
        }
      } finally {
        if (out.added.length > 0) void get().loadResults();
      }
      return out;
    },

    async removeResults(ids) {
      await api.call('results:remove', { ids });
      set((s) => ({
        results: s.results.filter((r) => !ids.includes(r.id)),
        selectedResultId: s.selectedResultId !== null && ids.includes(s.selectedResultId) ? null : s.selectedResultId,
      }));
      void get().loadResults();
    },

    selectResult(id) {
      set({ selectedResultId: id });
    },

    showResult(id) {
      set({ selectedResultId: id });
      get().showPage('results');
    },

    applyResultsChanged() {
      if (get().resultsLoad.status !== 'idle') void get().loadResults();
    },
  });
}
