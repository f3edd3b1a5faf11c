import { useCallback, useEffect, useState } from 'react';
import type { ErrorInfo } from '../../../../shared/contract';
import type { ResolvedHostView } from '../../../../shared/model/ssh-resolve';
import { useApi } from '../../api/context';
import { toErrorInfo } from '../../store';

export interface ResolvedHostState {
  /** The last answer, kept while a refresh runs so the values do not jump away; null after a failure. */
  view: ResolvedHostView | null;
  /** The last failure, cleared by the next answer. */
  error: ErrorInfo | null;
  /** A request is under way whose answer has not arrived. */
  loading: boolean;
}

interface Answer {
  /** The request it answers. */
  request: string;
  view: ResolvedHostView | null;
  error: ErrorInfo | null;
}

/**
 * Asks the core how a saved host resolves (`hosts:resolve`) when mounted, whenever `revision` changes (the host was
 * edited) and on `refresh()`. Only the newest request's answer is kept: an edit during a slow `ssh -G` must not be
 * overwritten by the answer for the settings before it.
 */
export function useResolvedHost(hostId: string, revision: string): ResolvedHostState & { refresh: () => void } {
  const api = useApi();
  const [refreshes, setRefreshes] = useState(0);
  const [answer, setAnswer] = useState<Answer>({ request: '', view: null, error: null });
  const request = JSON.stringify([hostId, revision, refreshes]);

  useEffect(() => {
    let current = true;
    api.call('hosts:resolve', { hostId }).then(
      (view) => {
        if (current) setAnswer({ request, view, error: null });
      },
      (e: unknown) => {
        if (current) setAnswer({ request, view: null, error: toErrorInfo(e) });
      },
    );
    return () => {
      // A newer request (or closing the panel) makes this one's answer stale.
      current = false;
    };
  }, [api, hostId, request]);

  const refresh = useCallback(() => setRefreshes((n) => n + 1), []);
  return { view: answer.view, error: answer.error, loading: answer.request !== request, refresh };
}
