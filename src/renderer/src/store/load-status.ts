/** Where loading something from the core stands; every slice that loads a list says it the same way. */
export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';
