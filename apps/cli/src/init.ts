import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { DynamicModule, Module } from '@nestjs/common';
import { z } from 'zod';
import { hashPassword } from '@loci/auth';
import { ConfigModule, loadSettings, Settings, SettingsError } from '@loci/config';
import { DbModule, UsersRepository } from '@loci/db';
import { openStoreContext } from './store-context';

export const INIT_USAGE = `  init [--email <email>]
                 creates the first platform operator on the store itself (DATABASE_URL or
                 LOCI_DATA_DIR; stop an embedded server first) and prints its credentials once:
                 the email from --email, $LOCI_BOOTSTRAP_OPERATOR_EMAIL or asked on a terminal,
                 the password from $LOCI_BOOTSTRAP_OPERATOR_PASSWORD or generated`;

const DEFAULT_EMAIL = 'operator@loci.local';
const email = z.email();

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  /** A terminal to ask on; absent (scripts, tests), the defaults apply. */
  ask?: (question: string) => Promise<string>;
}

@Module({})
class InitModule {
  static forRoot(settings: Settings): DynamicModule {
    return { module: InitModule, imports: [ConfigModule.forRoot(settings), DbModule] };
  }
}

/** Asks on the process's terminal, when it has one. */
export function terminalAsker(): Io['ask'] {
  if (!process.stdin.isTTY) return undefined;
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}

/**
 * `loci init`: the first operator without restarting the server with settings. It works on the
 * store like `npm run migrate` (there is no HTTP route that creates an operator without one),
 * and only while no operator exists, so it cannot be used to add a second one behind the
 * operators' backs. Exit codes: 0 created, 1 an operator exists or the store failed, 2 usage.
 */
export async function init(args: { email?: string }, io: Io): Promise<number> {
  let settings: Settings;
  try {
    settings = loadSettings(io.env);
  } catch (error) {
    if (error instanceof SettingsError) {
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  let chosen = args.email ?? io.env.LOCI_BOOTSTRAP_OPERATOR_EMAIL;
  if (chosen === undefined && io.ask) chosen = (await io.ask(`operator email [${DEFAULT_EMAIL}]: `)).trim() || undefined;
  chosen ??= DEFAULT_EMAIL;
  if (!email.safeParse(chosen).success) {
    io.stderr.write(`--email must be an email address, got "${chosen}"\n`);
    return 2;
  }
  const password = io.env.LOCI_BOOTSTRAP_OPERATOR_PASSWORD ?? randomBytes(18).toString('base64url');
  const app = await openStoreContext(InitModule.forRoot({ ...settings, bootstrapOperator: undefined }), settings, io, 'init');
  if (!app) return 1;
  try {
    const users = app.get(UsersRepository);
    if (await users.exists('operator')) {
      io.stderr.write('an operator exists already; sign in as it (or ask an operator) to add users\n');
      return 1;
    }
    await users.create({ tenantId: null, email: chosen, passwordHash: await hashPassword(password), role: 'operator' });
    io.stdout.write(
      [
        'first operator created; the password is shown only now:',
        `  LOCI_OPERATOR_EMAIL=${chosen}`,
        `  LOCI_OPERATOR_PASSWORD=${password}`,
        'export both to use `loci` (or sign in with POST /v1/auth/login).',
        '',
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    io.stderr.write(`init failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await app.close();
  }
}
