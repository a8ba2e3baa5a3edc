import type { components, operations, paths } from './schema';

export type { components, operations, paths };
/** The API's named schemas: `Schemas['Tenant']`, `Schemas['QueryResponse']`, ... */
export type Schemas = components['schemas'];
export { createLociClient, type LociClient, type LociClientOptions } from './client';
export { errorCode, errorMessage, LociApiError, unwrap } from './errors';
export { askStream, type QueryStreamEvent } from './query-stream';
