import { useSyncExternalStore } from 'react';

// The wall clock in quarter seconds: fine enough that a countdown turns over within 250 ms of the real second.
const POLL_MS = 250;
const subscribeToClock = (onChange: () => void) => {
  const timer = setInterval(onChange, POLL_MS);
  return () => clearInterval(timer);
};
const subscribeToNothing = () => () => {};
const currentTick = () => Math.floor(Date.now() / POLL_MS) * POLL_MS;

/**
 * Whole seconds left until `deadline` (ms since the epoch), never below 0, re-rendering as the seconds pass;
 * null without a deadline (and then no timer runs).
 */
export function useCountdown(deadline: number | null | undefined): number | null {
  const active = deadline !== null && deadline !== undefined;
  const now = useSyncExternalStore(active ? subscribeToClock : subscribeToNothing, currentTick);
  if (!active) return null;
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
