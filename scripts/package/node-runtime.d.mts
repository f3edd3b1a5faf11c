export const NODE_RUNTIME_VERSION: string;
export const NODE_RUNTIME_PACKAGES: Record<string, { name: string; os: string; cpu: string }>;
export const NODE_RUNTIME_CACHE: string;
export function nodeRuntimeDir(os: string, arch: string, cacheRoot?: string): string;
export function prepareNodeRuntime(os: string, arch: string, options?: { cacheRoot?: string; log?: (line: string) => void }): string | null;
