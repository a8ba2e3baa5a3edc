import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { API_KEY_ALLOWED, API_KEY_SCOPES, IS_PUBLIC, MCP_OAUTH_ALLOWED, ROLES } from '@loci/auth';

export interface RouteInfo {
  method: string;
  /** OpenAPI-style path: `/v1/admin/tenants/{tenantId}`. */
  path: string;
  auth: string;
  /** The controller method that serves it (its metadata: parameters, validation schemas). */
  handler: (...args: unknown[]) => unknown;
  controller: new (...args: unknown[]) => unknown;
  methodName: string;
}

/**
 * Every HTTP route the app serves, read from Nest's own metadata, with the auth metadata the
 * global guard acts on. Used by the OpenAPI completeness test and the route-auth snapshot.
 */
export function listRoutes(app: INestApplication): RouteInfo[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: RouteInfo[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
      if (!controller) continue;
      const prefix = normalise(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of scanner.getAllMethodNames(controller.prototype)) {
        const handler = controller.prototype[name];
        const path = Reflect.getMetadata(PATH_METADATA, handler);
        const method = Reflect.getMetadata(METHOD_METADATA, handler);
        if (path === undefined || method === undefined) continue;
        const targets = [handler, controller];
        const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false;
        const apiKey = reflector.getAllAndOverride<boolean>(API_KEY_ALLOWED, targets) ?? false;
        const roles = reflector.getAllAndOverride<string[]>(ROLES, targets);
        const scopes = reflector.getAllAndOverride<string[]>(API_KEY_SCOPES, targets) ?? ['read', 'write'];
        const mcpOAuth = reflector.getAllAndOverride<boolean>(MCP_OAUTH_ALLOWED, targets) ?? false;
        const auth = isPublic
          ? 'public'
          : [
              `jwt${roles ? `(${roles.join('|')})` : '(any role)'}`,
              ...(apiKey ? [`api_key(${scopes.length > 0 ? scopes.join('+') : 'any scope'})`] : []),
              ...(mcpOAuth ? ['mcp_oauth'] : []),
            ].join(' + ');
        const fullPath = [prefix, normalise(path)].filter(Boolean).join('/');
        routes.push({
          method: RequestMethod[method as RequestMethod],
          path: `/${fullPath}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
          auth,
          handler,
          controller,
          methodName: name,
        });
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

const normalise = (path: string) => path.replace(/^\/+|\/+$/g, '');
