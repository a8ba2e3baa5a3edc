export * from './entity-names';
export * from './errors';
export * from './money';
export * from './storable-text';
export * from './tenant-errors';
export * from './boot-logger';
export * from './spans';
export * from './log-destination';
