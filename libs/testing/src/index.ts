export * from './factories';
export * from './test-app';
export * from './test-database';
export * from './test-settings';
export * from './routes';
export * from './llm-double';
export * from './gb-graph';
export * from './limited-tenant';
