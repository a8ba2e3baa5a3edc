export * from './entity-names';
export * from './errors';
export * from './money';
export * from './storable-text';
