export const FUSE_SENTINEL: string;
export const FUSE_WIRE_VERSION: number;
export const ELECTRON_DEFAULT_FUSES: Array<[name: string, on: 0 | 1]>;
export function fuseWireBytes(fuses?: Array<[name: string, on: 0 | 1]>): Buffer;
export function standInExecutable(electronVersion: string): Buffer;
export function writeStandInElectronDist(dir: string, options: { electronVersion: string }): string;
