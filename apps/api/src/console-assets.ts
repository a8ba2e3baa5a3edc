import type { INestApplication } from '@nestjs/common';
import express, { NextFunction, Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where `npm run build` put the console: dist/console. This file runs from dist/apps/api/src
 * (npm start) or from apps/api/src (tests, through ts-jest), so both are looked for.
 */
export function consoleDir(): string | null {
  const root = resolve(__dirname, '..', '..', '..');
  // From the sources, <repo>/console is the console's source (no assets/): the build is in dist.
  for (const dir of [join(root, 'dist', 'console'), join(root, 'console')]) {
    if (existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets'))) return dir;
  }
  return null;
}

/**
 * Serves the console under /console from the same origin as the API: its hashed assets cached
 * for a year, its page never (a new build must be picked up). Same origin means no CORS and the
 * API's CSP as it is: helmet's policy allows scripts and styles from 'self', and Mantine's
 * inline style attributes through its style-src 'unsafe-inline' (no inline script is used).
 */
export function mountConsole(app: INestApplication): void {
  const dir = consoleDir();
  const page = (_req: Request, res: Response) => {
    if (!dir) {
      res.status(404).type('text/plain').send('The console is not built: run `npm run build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  };
  const server = app.getHttpAdapter().getInstance() as express.Express;
  if (dir) server.use('/console/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  // The site's root is where a newcomer's browser goes first: it leads to the console.
  server.get('/', (_req: Request, res: Response) => res.redirect(302, '/console/'));
  // /console, /console/ and anything below that is not an asset: the one page (it has no routes of its own).
  // A missing asset is a 404 (from Nest, in the API's shape), not the page.
  server.get(['/console', '/console/', '/console/{*rest}'], (req: Request, res: Response, next: NextFunction) =>
    req.path.startsWith('/console/assets/') ? next() : page(req, res),
  );
}
