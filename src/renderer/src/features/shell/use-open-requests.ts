import { useEffect, useRef } from 'react';
import { useApi } from '../../api/context';

/**
 * Opens the projects the system asked for — a double-clicked `.servelab`, a path on the command line, a second
 * launch — which wait in the core until a window takes them: once when the window starts (the request may have
 * come first), at each `app:openRequested`, and when a lost connection is back. One project is open at a time: of several asked for at once,
 * the last one is shown.
 */
export function useOpenRequests(openProjectAt: (path: string) => void): void {
  const api = useApi();
  const openRef = useRef(openProjectAt);
  useEffect(() => {
    openRef.current = openProjectAt;
  }, [openProjectAt]);
  useEffect(() => {
    const take = () => {
      api.call('app:openRequests', {}).then(
        ({ paths }) => {
          const last = paths.at(-1);
          if (last) openRef.current(last);
        },
        // Not answered (no connection): what the core holds waits for the next announcement.
        () => undefined,
      );
    };
    take();
    const offRequested = api.on('app:openRequested', take);
    // An announcement sent while the browser's socket was reconnecting is lost: look again once it is back.
    const offStatus = api.onStatus((status) => {
      if (status === 'open') take();
    });
    return () => {
      offRequested();
      offStatus();
    };
  }, [api]);
}
