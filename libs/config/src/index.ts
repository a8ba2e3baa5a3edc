export * from './settings';
export * from './settings.schema';
export * from './config.module';
export * from './data-dir-secret';
