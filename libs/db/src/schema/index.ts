export * from './columns';
export * from './tenancy';
export * from './graph';
export * from './operations';
export * from './geo-backfill';
export * from './mcp-oauth';
