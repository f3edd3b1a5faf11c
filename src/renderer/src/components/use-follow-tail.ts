import { useLayoutEffect, useRef, useState } from 'react';

/** How close to the bottom (px) still counts as "at the end" while following. */
const FOLLOW_SLACK = 24;

/**
 * A scrolling log that follows its newest line until the user scrolls up, and again once they scroll back to the
 * end (or tick Follow). `content` is whatever changes when lines arrive.
 */
export function useFollowTail(content: unknown) {
  const [follow, setFollow] = useState(true);
  const scrollRef = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (follow && element) element.scrollTop = element.scrollHeight;
  }, [content, follow]);

  function onScroll() {
    const element = scrollRef.current;
    if (!element) return;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight <= FOLLOW_SLACK;
    if (atBottom !== follow) setFollow(atBottom);
  }

  return { follow, setFollow, scrollRef, onScroll };
}
