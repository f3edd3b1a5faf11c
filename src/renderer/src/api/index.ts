export { createApiClient, type ApiClient } from './client';
export { pickTransport, tokenFromHash, type TransportEnvironment } from './pick-transport';
export type { ConnectionStatus, Transport, TransportKind } from './transport';
export { ApiProvider, useApi } from './context';
