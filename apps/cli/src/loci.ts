import { parseArgs } from 'node:util';
import { init, INIT_USAGE, terminalAsker } from './init';
import { REEMBED_USAGE, reembed } from './reembed';

/**
 * `npm run loci -- <command>`: the operators' command line. It drives the same admin API as
 * any other client (nothing it can do bypasses the API's checks), so it needs a running
 * server and an operator: `--token` / $LOCI_TOKEN, or $LOCI_OPERATOR_EMAIL and
 * $LOCI_OPERATOR_PASSWORD to log in.
 */
export const LOCI_USAGE = `Usage: npm run loci -- <command> [options]

Commands:
  tenants:list
  tenants:create --name <name> [--tier free|pro|enterprise] [--billing platform|own_key]
  tenants:show <tenant id>
  tenants:limits <tenant id> [--daily-cap <usd|none>] [--monthly-cap <usd|none>]
                 [--quota <n|none>] [--concurrency <n|none>] [--tier <tier>] [--billing <billing>]
  tenants:suspend <tenant id>                   refuses every request of the tenant, pauses its ingestion
  tenants:resume <tenant id>
  tenants:delete <tenant id> --yes              deletes the tenant and all its data (not undoable)
  tenants:export <tenant id> [--vectors]        writes the tenant's data to stdout as JSON Lines
  platform:limits [--daily-cap <usd|none>]      shows, or sets, the platform daily cap
  usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--tenant <tenant id>]
${INIT_USAGE}
${REEMBED_USAGE}

Options:
  --url <url>      the server (default $LOCI_URL or http://127.0.0.1:3000)
  --token <jwt>    an operator's access token (default $LOCI_TOKEN)
  -h, --help       this text

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
  from: { type: 'string' },
  to: { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
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
    const request = await buildRequest(command, rest, values);
    const token = values.token ?? io.env.LOCI_TOKEN ?? (await login(url, io.env));
    const response = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: { Authorization: `Bearer ${token}`, ...(request.body ? { 'Content-Type': 'application/json' } : {}) },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
    if (response.ok && request.stream && response.body) {
      // An export can be larger than memory: passed through as it arrives.
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) io.stdout.write(decoder.decode(chunk, { stream: true }));
      io.stdout.write(decoder.decode());
      return 0;
    }
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    if (!response.ok) {
      io.stderr.write(`${response.status}: ${body?.error?.message ?? text}\n`);
      return 1;
    }
    io.stdout.write(body === null ? `${request.done ?? 'done'}\n` : `${JSON.stringify(body, null, 2)}\n`);
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

interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** The answer is JSON Lines, written to stdout as it comes. */
  stream?: boolean;
  /** What to print for an answer without a body (204). */
  done?: string;
}

async function buildRequest(command: string, args: string[], values: Record<string, string | boolean | undefined>): Promise<ApiRequest> {
  const str = (name: string) => values[name] as string | undefined;
  const tenantId = () => {
    if (!args[0]) throw new UsageError(`${command} needs a tenant id`);
    return encodeURIComponent(args[0]);
  };
  switch (command) {
    case 'tenants:list':
      return { method: 'GET', path: '/v1/admin/tenants?limit=200' };
    case 'tenants:show':
      return { method: 'GET', path: `/v1/admin/tenants/${tenantId()}` };
    case 'tenants:create':
      if (!str('name')) throw new UsageError('tenants:create needs --name');
      return { method: 'POST', path: '/v1/admin/tenants', body: definedOnly({ name: str('name'), tier: str('tier'), billing: str('billing') }) };
    case 'tenants:limits': {
      const body = definedOnly({
        daily_cost_cap_usd: limitValue('daily-cap', str('daily-cap'), false),
        monthly_cost_cap_usd: limitValue('monthly-cap', str('monthly-cap'), false),
        daily_query_quota: limitValue('quota', str('quota'), true),
        max_concurrent_queries: limitValue('concurrency', str('concurrency'), true),
        tier: str('tier'),
        billing: str('billing'),
      });
      return Object.keys(body).length === 0
        ? { method: 'GET', path: `/v1/admin/tenants/${tenantId()}` }
        : { method: 'PATCH', path: `/v1/admin/tenants/${tenantId()}/limits`, body };
    }
    case 'tenants:suspend':
      return { method: 'POST', path: `/v1/admin/tenants/${tenantId()}/suspend` };
    case 'tenants:resume':
      return { method: 'POST', path: `/v1/admin/tenants/${tenantId()}/resume` };
    case 'tenants:delete':
      // Not undoable: the flag makes a slip of the shell history harmless.
      if (values.yes !== true) throw new UsageError('tenants:delete deletes the tenant and all its data; add --yes to confirm');
      return { method: 'DELETE', path: `/v1/admin/tenants/${tenantId()}`, done: `tenant ${args[0]} deleted` };
    case 'tenants:export':
      return { method: 'GET', path: `/v1/admin/tenants/${tenantId()}/export${values.vectors ? '?vectors=true' : ''}`, stream: true };
    case 'platform:limits': {
      const cap = limitValue('daily-cap', str('daily-cap'), false);
      return cap === undefined
        ? { method: 'GET', path: '/v1/admin/platform/limits' }
        : { method: 'PUT', path: '/v1/admin/platform/limits', body: { daily_cost_cap_usd: cap } };
    }
    case 'usage': {
      const query = new URLSearchParams(definedOnly({ from: str('from'), to: str('to'), tenant_id: str('tenant') }) as Record<string, string>);
      return { method: 'GET', path: `/v1/admin/usage${query.size ? `?${query}` : ''}` };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function login(url: string, env: Record<string, string | undefined>): Promise<string> {
  const email = env.LOCI_OPERATOR_EMAIL;
  const password = env.LOCI_OPERATOR_PASSWORD;
  if (!email || !password) throw new UsageError('give --token, $LOCI_TOKEN, or $LOCI_OPERATOR_EMAIL and $LOCI_OPERATOR_PASSWORD');
  const response = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) throw new Error(`login failed (${response.status})`);
  return ((await response.json()) as { access_token: string }).access_token;
}

function definedOnly<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}

if (require.main === module) {
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, ask: terminalAsker() }).then((code) => {
    process.exitCode = code;
  });
}
