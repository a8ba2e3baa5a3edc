import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '@loci/config';
import { createApp } from './create-app';
import { buildOpenApiDocument } from './openapi';

/**
 * Writes the app's OpenAPI document (what /openapi.json serves) to the file named by the first
 * argument, or to stdout. The app is built on a throwaway embedded store with no settings of
 * the caller's: the document depends on the code only (`npm run client:generate`).
 */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-openapi-'));
  const settings = loadSettings({
    PATH: process.env.PATH,
    LOCI_DATA_DIR: dataDir,
    LOCI_RUN_WORKER: 'false',
    LOG_LEVEL: 'warn',
  });
  const app = await createApp(settings);
  try {
    await app.init();
    const text = `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
    if (process.argv[2]) writeFileSync(process.argv[2], text);
    else process.stdout.write(text);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
