import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { UserRole } from '@loci/db';
import type { Principal } from './principal';

export const IS_PUBLIC = 'loci:auth:public';
export const API_KEY_ALLOWED = 'loci:auth:api-key-allowed';
export const ROLES = 'loci:auth:roles';

/** The route needs no credentials. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The route accepts a tenant API key as well as a JWT (the default is JWT only). */
export const ApiKeyAllowed = () => SetMetadata(API_KEY_ALLOWED, true);

/** JWT principals must have one of these roles. API keys are governed by @ApiKeyAllowed. */
export const Roles = (...roles: UserRole[]) => SetMetadata(ROLES, roles);

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);
