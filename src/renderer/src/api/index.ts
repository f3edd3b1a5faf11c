export { createApiClient, type ApiClient } from './client';
export { pickTransport, signInCodeFrom, type TransportEnvironment } from './pick-transport';
export type { ConnectionStatus, Transport, TransportKind } from './transport';
export { ApiProvider, useApi } from './context';
