/** How often a simulated process looks for its box's folder (resources/simbox/lib/box-watch.mjs). */
export declare const BOX_WATCH_MS: number;
/** Calls `onGone` once the box's folder is removed or replaced; returns a function that stops watching. */
export declare function endWithBox(onGone: (dir: string) => void, opts?: { env?: NodeJS.ProcessEnv; everyMs?: number }): () => void;
