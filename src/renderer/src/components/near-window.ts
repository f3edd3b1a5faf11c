import { useEffect, useState, type RefObject } from 'react';

// Work put off until an element is about to be seen: charts below a long table are drawn, and their data worked out,
// only when the reader scrolls near them.

/** How far below the window work starts, so it is done by the time the element scrolls in. */
const DRAW_AHEAD = '200px';

/** Calls `onVisible` once the box is within DRAW_AHEAD of the window (at once where there is no IntersectionObserver). */
export function whenNearWindow(box: Element, onVisible: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    onVisible();
    return () => {};
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      onVisible();
    },
    { rootMargin: DRAW_AHEAD },
  );
  observer.observe(box);
  return () => observer.disconnect();
}

/** Whether the element has come within DRAW_AHEAD of the window (it stays true once it has). */
export function useNearWindow(ref: RefObject<Element | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    return whenNearWindow(element, () => setNear(true));
  }, [ref, near]);
  return near;
}
