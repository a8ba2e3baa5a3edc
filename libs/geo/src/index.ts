export * from './distance';
export * from './gazetteer';
export * from './place-types';
export * from './locate-place';
