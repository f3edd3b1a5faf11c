import type { Configuration } from 'electron-builder';
export const electronFuses: NonNullable<Configuration['electronFuses']>;
declare const config: Configuration;
export default config;
