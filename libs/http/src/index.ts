export * from './error-body';
export * from './exception.filter';
export * from './json-body.middleware';
export * from './request-id.middleware';
export * from './surfaces';
export * from './zod-validation';
export * from './fastapi-validation';
export * from './text-fields';
