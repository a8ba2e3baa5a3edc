import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Settings } from '@loci/config';
import { DataDirectoryInUseError, ensureStoreIsFree } from '@loci/db';

/**
 * The CLI's commands that work on the store itself (init, reembed) open it in an application
 * context. A store another process holds (the embedded server running on the same data
 * directory) is refused in plain words before the modules are built, rather than with Nest's
 * stack trace of the failed provider.
 */
export async function openStoreContext(
  module: DynamicModule,
  settings: Pick<Settings, 'database' | 'dataDir'>,
  io: { stderr: { write(text: string): unknown } },
  command: string,
): Promise<INestApplicationContext | undefined> {
  try {
    await ensureStoreIsFree(settings);
    return await NestFactory.createApplicationContext(module, { logger: ['error', 'warn'], abortOnError: false });
  } catch (error) {
    io.stderr.write(error instanceof DataDirectoryInUseError ? `${error.message}\n` : `${command} failed: ${(error as Error).message}\n`);
    return undefined;
  }
}
