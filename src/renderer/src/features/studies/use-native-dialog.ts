import { useCallback, useRef } from 'react';
import { isNotSupported } from './study-errors';

/**
 * Asks the desktop app's native file dialog; resolves to `undefined` when there is none here (a browser answers
 * NOT_SUPPORTED), so the caller asks for a typed path instead. Learned from the first call, then not asked again.
 */
export function useNativeDialog(): <T>(ask: () => Promise<T>) => Promise<T | undefined> {
  const available = useRef<boolean | null>(null);
  return useCallback(async <T,>(ask: () => Promise<T>): Promise<T | undefined> => {
    if (available.current === false) return undefined;
    try {
      const answer = await ask();
      available.current = true;
      return answer;
    } catch (e) {
      if (!isNotSupported(e)) throw e;
      available.current = false;
      return undefined;
    }
  }, []);
}
