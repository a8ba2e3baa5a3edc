export * from './api-key-secret';
export * from './api-keys.service';
export * from './auth.guard';
export * from './auth.module';
export * from './decorators';
export * from './login.service';
export * from './password-hasher';
export * from './principal';
