import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import type { HttpSettings } from '@loci/config';

/**
 * Response headers and server limits every deployment wants (issue 15, item 6): helmet's
 * security headers, no caching of API answers, the CORS allow-list, the client address behind
 * trusted proxies, and how long a client may take to send a request.
 */
export function applyHttpHygiene(app: INestApplication, http: HttpSettings): void {
  const express = app.getHttpAdapter().getInstance();
  // The login throttle counts by req.ip: behind a balancer, only trusted hops may name the client.
  express.set('trust proxy', http.trustProxy);
  // No ETag on API answers: they are never stored (no-store below) and most are POSTs, so a
  // validator is never used, and hashing a question's context (tens of KB) cost the event loop
  // every tenant shares on every answer. The console's files keep theirs (serve-static's own).
  express.set('etag', false);

  app.use(
    helmet({
      // Helmet's policy (scripts and styles from this origin only; Swagger UI at /docs loads its
      // scripts as files), no framing at all, and no upgrade of subresources to HTTPS on a server
      // that may be plain HTTP (development, behind a TLS-terminating proxy without HSTS).
      contentSecurityPolicy: {
        directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: http.hstsMaxAgeSeconds > 0 ? [] : null },
      },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      // HSTS only where the operator knows every client reaches Loci over HTTPS.
      strictTransportSecurity: http.hstsMaxAgeSeconds > 0 ? { maxAge: http.hstsMaxAgeSeconds, includeSubDomains: true } : false,
    }),
  );
  app.use(noStoreForApi);

  if (http.corsOrigins.length > 0) {
    app.enableCors({
      origin: http.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-API-Key', 'X-Request-Id'],
      exposedHeaders: ['Retry-After', 'X-Request-Id', 'RateLimit', 'RateLimit-Policy'],
      // Credentials travel in the Authorization header, never in cookies.
      credentials: false,
      maxAge: 600,
    });
  }

  const server = app.getHttpServer() as Server;
  server.requestTimeout = http.requestTimeoutMs;
  server.headersTimeout = http.headersTimeoutMs;
}

/**
 * API answers are per caller and some carry secrets (access tokens, new API keys): no browser or
 * shared cache may keep any of them. Set on every /v1 response, errors included, so a new route
 * that returns a secret is covered without remembering to say so.
 */
function noStoreForApi(req: Request, res: Response, next: NextFunction): void {
  if (req.path.startsWith('/v1/')) res.setHeader('Cache-Control', 'no-store');
  next();
}
