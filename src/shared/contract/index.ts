export * from './channels';
export * from './contract';
export * from './errors';
export * from './wire';
export type * from './bridge';
export * from './app-commands';
