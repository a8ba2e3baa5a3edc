import { randomBytes } from 'node:crypto';
import { createLociClient, errorMessage, type LociClient, type Schemas } from '@loci/client';
import { parseArgs } from 'node:util';
import { init, INIT_USAGE, terminalAsker } from './init';
import { REEMBED_USAGE, reembed } from './reembed';

/**
 * `loci <command>` (or `npm run loci -- <command>`): the operators' command line. It drives the
 * same admin API as any other client (nothing it can do bypasses the API's checks), so it
 * needs a running server and an operator: `--token` / $LOCI_TOKEN, or $LOCI_OPERATOR_EMAIL and
 * $LOCI_OPERATOR_PASSWORD to log in. `init` and `reembed` work on the store instead.
 */
export const LOCI_USAGE = `Usage: loci <command> [options]      (or: npm run loci -- <command> [options])

Commands:
  tenants:list
  tenants:create --name <name> [--tier free|pro|enterprise] [--billing platform|own_key]
  tenants:show <tenant id>
  tenants:limits <tenant id> [--daily-cap <usd|none>] [--monthly-cap <usd|none>]
                 [--quota <n|none>] [--concurrency <n|none>] [--running-jobs <n|none>]
                 [--rpm <n|none>] [--burst <n|none>] [--documents-day <n|none>]
                 [--ingest-mb-day <n|none>] [--stored-mb <n|none>]
                 [--tier <tier>] [--billing <billing>]
  tenants:suspend <tenant id>                   refuses every request of the tenant, pauses its ingestion
  tenants:resume <tenant id>
  tenants:delete <tenant id> --yes              deletes the tenant and all its data (not undoable)
  tenants:export <tenant id> [--vectors]        writes the tenant's data to stdout as JSON Lines
  platform:limits [--daily-cap <usd|none>]      shows, or sets, the platform daily cap
  usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--tenant <tenant id>]
  users:list <tenant id>
  users:create <tenant id> --email <email> [--role admin|member] [--password <password>]
                 without --password one is generated and printed once (role default: member)
  users:update <tenant id> <user id> [--role admin|member] [--disable | --enable]
  users:delete <tenant id> <user id> --yes      also revokes the API keys the user created
  api-keys:create <tenant id> --name <name> [--scopes read,write] [--expires <ISO 8601 time>]
                 prints the key once
  api-keys:revoke <tenant id> <key id>
${INIT_USAGE}
${REEMBED_USAGE}

Options:
  --url <url>      the server (default $LOCI_URL or http://127.0.0.1:3000)
  --token <jwt>    an operator's access token (default $LOCI_TOKEN)
  -h, --help       this text

Signing in (commands that call the server): --token, or $LOCI_TOKEN, or
$LOCI_OPERATOR_EMAIL and $LOCI_OPERATOR_PASSWORD (the CLI logs in with them). No operator yet?
\`loci init\` creates the first one (or start the server with LOCI_BOOTSTRAP_OPERATOR_EMAIL and
LOCI_BOOTSTRAP_OPERATOR_PASSWORD).

Exit codes: 0 done, 1 the server refused or could not be reached, 2 usage error.
`;

export interface LociIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  /** Asks the person at the terminal (init's email); absent in scripts and tests. */
  ask?: (question: string) => Promise<string>;
}

class UsageError extends Error {}

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  name: { type: 'string' },
  tier: { type: 'string' },
  billing: { type: 'string' },
  'daily-cap': { type: 'string' },
  'monthly-cap': { type: 'string' },
  quota: { type: 'string' },
  concurrency: { type: 'string' },
  'running-jobs': { type: 'string' },
  rpm: { type: 'string' },
  burst: { type: 'string' },
  'documents-day': { type: 'string' },
  'ingest-mb-day': { type: 'string' },
  'stored-mb': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  password: { type: 'string' },
  disable: { type: 'boolean' },
  enable: { type: 'boolean' },
  scopes: { type: 'string' },
  expires: { type: 'string' },
  graph: { type: 'string' },
  'page-size': { type: 'string' },
  yes: { type: 'boolean' },
  vectors: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `none` means unlimited (null); a number otherwise. */
function limitValue(option: string, raw: string | undefined, integer: boolean): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${option} must be ${integer ? 'a whole number' : 'an amount in USD'} or "none", got "${raw}"`);
  }
  return value;
}

export async function main(argv: string[], io: LociIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${LOCI_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? io.stdout : io.stderr).write(LOCI_USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'init') {
    if (rest.length > 0) {
      io.stderr.write(`init takes no arguments, only options\n\n${LOCI_USAGE}`);
      return 2;
    }
    return init({ email: values.email }, io);
  }
  if (command === 'reembed') {
    if (rest.length > 0) {
      io.stderr.write(`reembed takes no arguments, only options\n\n${LOCI_USAGE}`);
      return 2;
    }
    return reembed({ tenant: values.tenant, graph: values.graph, pageSize: values['page-size'] }, io);
  }
  const url = (values.url ?? io.env.LOCI_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  try {
    const command_ = buildCommand(command, rest, values);
    const token = values.token ?? io.env.LOCI_TOKEN ?? (await login(url, io.env));
    const { data, error, response } = await command_.call(clientFor(url, token));
    if (!response.ok) {
      io.stderr.write(`${response.status}: ${errorMessage(error) ?? response.statusText}\n`);
      return 1;
    }
    if (command_.stream) {
      // An export can be larger than memory: passed through as it arrives.
      const decoder = new TextDecoder();
      for await (const chunk of data as AsyncIterable<Uint8Array>) io.stdout.write(decoder.decode(chunk, { stream: true }));
      io.stdout.write(decoder.decode());
      return 0;
    }
    const body = (data ?? null) as Record<string, unknown> | null;
    const shown = body !== null && command_.show ? command_.show(body) : body;
    io.stdout.write(shown === null ? `${command_.done ?? 'done'}\n` : `${JSON.stringify(shown, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n\n${LOCI_USAGE}`);
      return 2;
    }
    io.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}

/** One call of the typed client (packages/client): what a command sends, checked against the API's document. */
interface Command {
  call: (api: LociClient) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  /** The answer is JSON Lines, written to stdout as it comes. */
  stream?: boolean;
  /** What to print for an answer without a body (204). */
  done?: string;
  /** What to print of the answer's body (default: all of it). */
  show?: (body: Record<string, unknown>) => Record<string, unknown>;
}

function buildCommand(command: string, args: string[], values: Record<string, string | boolean | undefined>): Command {
  const str = (name: string) => values[name] as string | undefined;
  const tenantId = () => {
    if (!args[0]) throw new UsageError(`${command} needs a tenant id`);
    return args[0];
  };
  const secondId = (what: string) => {
    if (!args[1]) throw new UsageError(`${command} needs a tenant id and a ${what}`);
    return args[1];
  };
  const tenant = () => ({ params: { path: { tenantId: tenantId() } } });
  switch (command) {
    case 'tenants:list':
      return { call: (api) => api.GET('/v1/admin/tenants', { params: { query: { limit: 200 } } }) };
    case 'tenants:show': {
      const params = tenant();
      return { call: (api) => api.GET('/v1/admin/tenants/{tenantId}', params) };
    }
    case 'tenants:create': {
      if (!str('name')) throw new UsageError('tenants:create needs --name');
      const body = definedOnly({ name: str('name')!, tier: str('tier'), billing: str('billing') }) as Schemas['CreateTenantRequest'];
      return { call: (api) => api.POST('/v1/admin/tenants', { body }) };
    }
    case 'tenants:limits': {
      const body = definedOnly({
        daily_cost_cap_usd: limitValue('daily-cap', str('daily-cap'), false),
        monthly_cost_cap_usd: limitValue('monthly-cap', str('monthly-cap'), false),
        daily_query_quota: limitValue('quota', str('quota'), true),
        max_concurrent_queries: limitValue('concurrency', str('concurrency'), true),
        max_running_jobs: limitValue('running-jobs', str('running-jobs'), true),
        requests_per_minute: limitValue('rpm', str('rpm'), true),
        request_burst: limitValue('burst', str('burst'), true),
        daily_document_quota: limitValue('documents-day', str('documents-day'), true),
        daily_ingest_mb: limitValue('ingest-mb-day', str('ingest-mb-day'), true),
        max_stored_mb: limitValue('stored-mb', str('stored-mb'), true),
        tier: str('tier'),
        billing: str('billing'),
      }) as Schemas['UpdateLimitsRequest'];
      const params = tenant();
      return Object.keys(body).length === 0
        ? { call: (api) => api.GET('/v1/admin/tenants/{tenantId}', params) }
        : { call: (api) => api.PATCH('/v1/admin/tenants/{tenantId}/limits', { ...params, body }) };
    }
    case 'tenants:suspend': {
      const params = tenant();
      return { call: (api) => api.POST('/v1/admin/tenants/{tenantId}/suspend', params) };
    }
    case 'tenants:resume': {
      const params = tenant();
      return { call: (api) => api.POST('/v1/admin/tenants/{tenantId}/resume', params) };
    }
    case 'tenants:delete': {
      // Not undoable: the flag makes a slip of the shell history harmless.
      if (values.yes !== true) throw new UsageError('tenants:delete deletes the tenant and all its data; add --yes to confirm');
      const params = tenant();
      return { call: (api) => api.DELETE('/v1/admin/tenants/{tenantId}', params), done: `tenant ${args[0]} deleted` };
    }
    case 'tenants:export': {
      const query = values.vectors ? { vectors: 'true' as const } : {};
      const { params } = tenant();
      return { call: (api) => api.GET('/v1/admin/tenants/{tenantId}/export', { params: { ...params, query }, parseAs: 'stream' }), stream: true };
    }
    case 'platform:limits': {
      const cap = limitValue('daily-cap', str('daily-cap'), false);
      return cap === undefined
        ? { call: (api) => api.GET('/v1/admin/platform/limits') }
        : { call: (api) => api.PUT('/v1/admin/platform/limits', { body: { daily_cost_cap_usd: cap } }) };
    }
    case 'usage': {
      const query = definedOnly({ from: str('from'), to: str('to'), tenant_id: str('tenant') });
      return { call: (api) => api.GET('/v1/admin/usage', { params: { query } }) };
    }
    case 'users:list': {
      const { params } = tenant();
      return { call: (api) => api.GET('/v1/admin/tenants/{tenantId}/users', { params: { ...params, query: { limit: 200 } } }) };
    }
    case 'users:create': {
      if (!str('email')) throw new UsageError('users:create needs --email');
      const role = oneOf('role', str('role') ?? 'member', ['admin', 'member'] as const);
      const generated = str('password') === undefined ? randomBytes(18).toString('base64url') : undefined;
      const params = tenant();
      const body = { email: str('email')!, password: str('password') ?? generated!, role };
      return {
        call: (api) => api.POST('/v1/admin/tenants/{tenantId}/users', { ...params, body }),
        // The server never shows a password; a generated one is printed here, once.
        show: (user) => (generated ? { ...user, password: generated } : user),
      };
    }
    case 'users:update': {
      const path = { tenantId: tenantId(), userId: secondId('user id') };
      if (values.disable && values.enable) throw new UsageError('users:update takes --disable or --enable, not both');
      const body = definedOnly({
        role: str('role') === undefined ? undefined : oneOf('role', str('role')!, ['admin', 'member'] as const),
        disabled: values.disable ? true : values.enable ? false : undefined,
      });
      if (Object.keys(body).length === 0) throw new UsageError('users:update needs --role, --disable or --enable');
      return { call: (api) => api.PATCH('/v1/admin/tenants/{tenantId}/users/{userId}', { params: { path }, body }) };
    }
    case 'users:delete': {
      if (values.yes !== true) throw new UsageError('users:delete deletes the user and revokes the keys they created; add --yes to confirm');
      const path = { tenantId: tenantId(), userId: secondId('user id') };
      return { call: (api) => api.DELETE('/v1/admin/tenants/{tenantId}/users/{userId}', { params: { path } }) };
    }
    case 'api-keys:create': {
      if (!str('name')) throw new UsageError('api-keys:create needs --name');
      const scopes = str('scopes')?.split(',').map((scope) => oneOf('scopes', scope.trim(), ['read', 'write'] as const));
      const params = tenant();
      const body = { name: str('name')!, ...definedOnly({ scopes, expires_at: str('expires') }) };
      return { call: (api) => api.POST('/v1/admin/tenants/{tenantId}/api-keys', { ...params, body }) };
    }
    case 'api-keys:revoke': {
      const path = { tenantId: tenantId(), keyId: secondId('key id') };
      return { call: (api) => api.DELETE('/v1/admin/tenants/{tenantId}/api-keys/{keyId}', { params: { path } }), done: `key ${args[1]} revoked` };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function oneOf<T extends string>(option: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new UsageError(`--${option} must be ${allowed.join(' or ')}, got "${value}"`);
  return value as T;
}

/**
 * The typed client, whose fetch tells a failure to connect as such: which server, and why
 * (refused, no such host, reset), instead of undici's bare "fetch failed".
 */
export function clientFor(server: string, token?: string): LociClient {
  const reach = async (request: Request): Promise<Response> => {
    try {
      return await fetch(request);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new Error(`could not reach the Loci server at ${server}: ${why} (is it running? --url or $LOCI_URL names it)`, { cause: error });
    }
  };
  return createLociClient({ baseUrl: server, token, fetch: reach });
}

async function login(url: string, env: Record<string, string | undefined>): Promise<string> {
  const email = env.LOCI_OPERATOR_EMAIL;
  const password = env.LOCI_OPERATOR_PASSWORD;
  if (!email || !password) throw new UsageError('give --token, $LOCI_TOKEN, or $LOCI_OPERATOR_EMAIL and $LOCI_OPERATOR_PASSWORD');
  const { data, response } = await clientFor(url).POST('/v1/auth/login', { body: { email, password } });
  if (!data) throw new Error(`login as ${email} at ${url} failed (${response.status})`);
  return data.access_token;
}

function definedOnly<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The command on this process's arguments and streams (bin/loci.js, or `node dist/.../loci.js`). */
export function runFromProcess(): void {
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, ask: terminalAsker() }).then(
    (code) => {
      process.exitCode = code;
    },
    // main answers every failure it expects with a message and a code; anything else is printed
    // here as one line and exit 1, not left an unhandled rejection with a stack trace.
    (error: unknown) => {
      process.stderr.write(`loci: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) runFromProcess();
