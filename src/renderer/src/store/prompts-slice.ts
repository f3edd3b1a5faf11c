import type { StateCreator } from 'zustand';
import type { ErrorInfo } from '../../../shared/contract';
import type { PromptRequestView } from '../../../shared/model/prompt';
import type { ApiClient } from '../api/client';
import { toErrorInfo } from './errors';
import type { AppState } from './types';

export interface PromptsSlice {
  /** Questions from the core waiting for the user, oldest first; the first is shown. */
  prompts: PromptRequestView[];
  /** Why the last answer to a question was refused, by request id. */
  promptErrors: Record<string, ErrorInfo>;
  loadPendingPrompts(): Promise<void>;
  answerPrompt(requestId: string, answers: string[], remember: boolean): Promise<void>;
  cancelPrompt(requestId: string): Promise<void>;
  applyPromptRequest(prompt: PromptRequestView): void;
  applyPromptSettled(requestId: string): void;
}


function withoutKey<T>(record: Record<string, T>, id: string): Record<string, T> {
  if (!(id in record)) return record;
  const { [id]: _dropped, ...rest } = record;
  return rest;
}

/** Questions the core asks while connecting (passphrases, passwords, 2FA codes), answered in arrival order. */
export function createPromptsSlice(api: ApiClient): StateCreator<AppState, [], [], PromptsSlice> {
  return (set, get) => ({
    prompts: [],
    promptErrors: {},

    async loadPendingPrompts() {
      try {
        const pending = await api.call('prompts:pending', {});
        // The core's list is the truth: what it no longer holds was settled while the page was away.
        set((s) => {
          const ids = new Set(pending.map((p) => p.requestId));
          return { prompts: pending, promptErrors: Object.fromEntries(Object.entries(s.promptErrors).filter(([id]) => ids.has(id))) };
        });
      } catch {
        // Events still bring new questions; a failed backlog fetch only misses older ones.
      }
    },

    async answerPrompt(requestId, answers, remember) {
      set((s) => ({ promptErrors: withoutKey(s.promptErrors, requestId) }));
      try {
        await api.call('prompts:answer', { requestId, answers, remember });
      } catch (error) {
        if (get().prompts.some((p) => p.requestId === requestId)) set((s) => ({ promptErrors: { ...s.promptErrors, [requestId]: toErrorInfo(error) } }));
        return;
      }
      // Answered, or no longer waiting (timed out, answered in another window): either way it is done here.
      get().applyPromptSettled(requestId);
    },

    async cancelPrompt(requestId) {
      get().applyPromptSettled(requestId);
      try {
        await api.call('prompts:cancel', { requestId });
      } catch {
        // The question times out in the core anyway; the dialog is already closed.
      }
    },

    applyPromptRequest(prompt) {
      set((s) => (s.prompts.some((p) => p.requestId === prompt.requestId) ? {} : { prompts: [...s.prompts, prompt] }));
    },

    applyPromptSettled(requestId) {
      set((s) =>
        s.prompts.some((p) => p.requestId === requestId)
          ? { prompts: s.prompts.filter((p) => p.requestId !== requestId), promptErrors: withoutKey(s.promptErrors, requestId) }
          : {},
      );
    },
  });
}
