import { useEffect } from 'react';
import { hasUnsavedChanges, useAppStore } from '../../store';

/**
 * While the wizard holds unsaved changes, closing or reloading the page asks first: the browser shows its own
 * question, and in the desktop app the main process answers `will-prevent-unload` with a native Leave / Stay box.
 */
export function useUnloadGuard(): void {
  const unsaved = useAppStore(hasUnsavedChanges);
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older engines ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [unsaved]);
}
