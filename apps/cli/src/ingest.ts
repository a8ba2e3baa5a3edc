import { parseArgs } from 'node:util';
import { bulkMode, BulkModeError } from './bulk-mode';
import { exitCodeOf, summarize, uploadAll } from './bulk-uploader';
import { collectFiles, UsageError } from './collect-files';
import { createProgressView, formatSummary, Output } from './progress-view';

const DEFAULT_URL = 'http://127.0.0.1:3000';

export const USAGE = `Usage: ingest <folder|file...> --tenant-key <api key> [options]
       (or: npm run ingest -- <folder|file...> --tenant-key <api key> [options])

Uploads .txt .md .html .htm .pdf files to a Loci server (folders are walked recursively;
other files are listed as skipped) and waits until each document is processed.

Options:
  --tenant-key <key>   the tenant's API key (loci_...); defaults to $LOCI_API_KEY
  --url <url>          the server (default $LOCI_URL or ${DEFAULT_URL})
  --concurrency <n>    documents in flight at once (default 4)
  --poll-ms <ms>       how often to ask for a document's status (default 500)
  --timeout-s <s>      longest wait for one document after its upload (default 600)
  --bulk               a first load of a large corpus: the server keeps the tenant graph's
                       vectors out of the indexes all tenants share while the files load,
                       then builds the graph's own indexes once (PostgreSQL store only)
  -h, --help           this text

Signing in: an API key of the tenant (--tenant-key or $LOCI_API_KEY) with the write scope;
a tenant admin creates one at POST /v1/api-keys, an operator with
\`loci api-keys:create <tenant id> --name <name>\`.

Exit codes: 0 every file processed (or already uploaded), 1 some failed, were deferred or
timed out, or the server could not be reached, 2 usage error or an API key the server refused.
`;

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C: the run stops and still prints its summary. */
  signal?: AbortSignal;
}

export interface CliOptions {
  paths: string[];
  url: string;
  apiKey: string;
  concurrency: number;
  pollMs: number;
  timeoutMs: number;
  /** Begin the tenant graph's bulk load before the uploads and finish it after them. */
  bulk: boolean;
}

/** Reads the command line; throws UsageError with a message fit for the user. */
export function parseCli(argv: string[], env: Record<string, string | undefined>): CliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'tenant-key': { type: 'string' },
        url: { type: 'string' },
        concurrency: { type: 'string', default: '4' },
        'poll-ms': { type: 'string', default: '500' },
        'timeout-s': { type: 'string', default: '600' },
        bulk: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // parseArgs names the bad option itself ("Unknown option '--foo'").
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length === 0) throw new UsageError('Name at least one folder or file to upload.');
  const apiKey = (values['tenant-key'] ?? env.LOCI_API_KEY ?? '').trim();
  if (!apiKey) throw new UsageError('An API key is required: --tenant-key <key> or LOCI_API_KEY.');
  // As `loci` does: --url, else $LOCI_URL, else the local default.
  const given = values.url ?? env.LOCI_URL?.trim() ?? DEFAULT_URL;
  const source = values.url !== undefined ? '--url' : env.LOCI_URL ? '$LOCI_URL' : 'the default URL';
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`${source} is not a URL: ${given}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${source} must be http(s): ${given}`);
  return {
    paths: positionals,
    url: url.toString(),
    apiKey,
    concurrency: integerOption('--concurrency', values.concurrency, 1, 64),
    pollMs: integerOption('--poll-ms', values['poll-ms'], 50, 60_000),
    timeoutMs: integerOption('--timeout-s', values['timeout-s'], 1, 86_400) * 1000,
    bulk: values.bulk === true,
  };
}

function integerOption(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, not "${raw}".`);
  }
  return value;
}

/** The whole command, minus process globals, so tests can run it in-process; answers the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  let options: CliOptions | 'help';
  let collected: Awaited<ReturnType<typeof collectFiles>>;
  try {
    options = parseCli(argv, io.env);
    if (options === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    collected = await collectFiles(options.paths);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`ingest: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (collected.files.length === 0) {
    // Most likely the wrong folder: saying "all 0 files processed" would hide that.
    io.stderr.write(`ingest: nothing to upload: no .txt .md .html .htm .pdf file among ${options.paths.join(' ')}\n`);
    for (const s of collected.skipped) io.stderr.write(`  skipped ${s.path}: ${s.reason}\n`);
    return 2;
  }

  const bulk = options.bulk ? bulkMode({ url: options.url, apiKey: options.apiKey, pollMs: options.pollMs, signal: io.signal }) : undefined;
  if (bulk) {
    try {
      await bulk.begin();
      io.stdout.write('bulk mode: the graph loads without upkeep of shared indexes; its own are built at the end\n');
    } catch (error) {
      if (!(error instanceof BulkModeError)) throw error;
      io.stderr.write(`ingest: ${error.message}\n`);
      return 1;
    }
  }

  const view = createProgressView(io.stdout, collected.files.length);
  view.skipped(collected.skipped);
  const result = await uploadAll(collected.files, collected.skipped, {
    url: options.url,
    apiKey: options.apiKey,
    concurrency: options.concurrency,
    pollMs: options.pollMs,
    timeoutMs: options.timeoutMs,
    onUpdate: (state) => view.update(state),
    signal: io.signal,
  }).finally(() => view.stop());

  io.stdout.write(formatSummary(result, summarize(result)));
  if (result.aborted) io.stderr.write(`ingest: ${result.aborted.message}\n`);
  // Finished even when files failed or the run was stopped: a graph left loading searches its
  // vectors exactly until someone finishes it. Not with a refused key, which would be refused again.
  if (bulk && result.aborted?.reason !== 'auth') {
    try {
      await bulk.finish();
      io.stdout.write("bulk mode: building the graph's own indexes...\n");
      const state = await bulk.indexed(options.timeoutMs);
      io.stdout.write(
        state === 'indexed'
          ? "bulk mode: the graph's own indexes are built\n"
          : `bulk mode: still ${state}; the server goes on (GET /v1/bulk-load shows when it is done)\n`,
      );
    } catch (error) {
      if (!(error instanceof BulkModeError) && !io.signal?.aborted) throw error;
      io.stderr.write(`ingest: ${error instanceof Error ? error.message : String(error)}; finish it with POST /v1/bulk-load/finish\n`);
      return 1;
    }
  }
  return exitCodeOf(result);
}

/** The command on this process's arguments and streams (bin/ingest.js, or `node dist/.../ingest.js`). */
export function runFromProcess(): void {
  const interrupt = new AbortController();
  // The first Ctrl-C stops cleanly (summary of what finished); a second one exits at once.
  process.once('SIGINT', () => {
    interrupt.abort();
    process.once('SIGINT', () => {
      if (process.stdout.isTTY) process.stdout.write('\x1b[?25h'); // the bars hide the cursor
      process.exit(130);
    });
  });
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: interrupt.signal }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`ingest: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) runFromProcess();
