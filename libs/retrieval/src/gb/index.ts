export * from './gb-keywords';
export * from './gb-query.context';
export * from './gb-query.repository';
export * from './gb-query.service';
export * from './gb-query.settings';
export * from './gb-nearby';
