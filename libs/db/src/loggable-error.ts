import { createHash } from 'node:crypto';

/**
 * What of an error may be written to a log. Errors carry tenant text: drizzle's message ends
 * with the statement's `params:` (document text, names, gb user ids), PostgreSQL's `detail`
 * quotes key values ("Key (name)=(Alice) already exists") and a data exception quotes its input
 * ('invalid input syntax for type uuid: "u-42"'), JSON.parse quotes what it could not parse. A
 * record keeps the class, codes, the store's identifiers (constraint, table, column), sizes and
 * hashes, and the message with every quoted run that is not such an identifier replaced by its
 * length.
 */
export interface LoggableError {
  type: string;
  /** A domain error's code, or Node's (ECONNREFUSED). */
  code?: string;
  sqlState?: string;
  constraint?: string;
  table?: string;
  column?: string;
  message: string;
  /** A failed statement: its opening words (identifiers, no values), length, parameter count and hash. */
  statement?: { head: string; chars: number; params: number; sha256: string };
  /** Stack frames only: the stack's first line repeats the unscrubbed message. */
  stack?: string;
  cause?: LoggableError;
}

const MAX_MESSAGE = 300;
const STATEMENT_HEAD = 80;
const MAX_FRAMES = 8;
const MAX_DEPTH = 4;

type ErrorLike = Record<string, unknown> & { message?: unknown; cause?: unknown; stack?: unknown };

const RECORD = Symbol('loci.loggableError');

export function loggableError(error: unknown, depth = 0): LoggableError {
  if (isLoggableError(error)) return error;
  if (typeof error !== 'object' || error === null) {
    // A thrown string or number says nothing safe but its length.
    return { type: typeof error, message: `[${String(error).length} chars]` };
  }
  const e = error as ErrorLike;
  const identifiers = storeIdentifiers(error);
  const record: LoggableError = { type: typeName(e), message: '' };
  const state = ownSqlState(e);
  if (state) record.sqlState = state;
  else if (typeof e.code === 'string' && /^[\w.-]{1,64}$/.test(e.code)) record.code = e.code;
  for (const key of ['constraint', 'table', 'column'] as const) {
    if (typeof e[key] === 'string') record[key] = e[key];
  }
  // Drizzle's wrapper: "Failed query: <sql>\nparams: <values>". (PGlite's own errors also carry
  // `query` and `params`; their wrapper reports the statement once.)
  if (typeof e.query === 'string' && typeof e.message === 'string' && e.message.startsWith('Failed query:')) {
    record.statement = statementFacts(e.query, e.params);
    record.message = 'Failed query';
  } else {
    record.message = scrub(typeof e.message === 'string' ? withoutParams(e.message) : '', identifiers);
  }
  if (depth === 0 && typeof e.stack === 'string') {
    const frames = e.stack.split('\n').filter((line) => /^\s+at /.test(line));
    if (frames.length > 0) record.stack = frames.slice(0, MAX_FRAMES).join('\n');
  }
  if (e.cause !== undefined && depth < MAX_DEPTH) record.cause = loggableError(e.cause, depth + 1);
  Object.defineProperty(record, RECORD, { value: true });
  return record;
}

function isLoggableError(value: unknown): value is LoggableError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RECORD] === true;
}

/**
 * pino's serializer for the `err` and `error` keys, so an error object handed to any logger is
 * written as its record. pino-http hands it pino's own serialization, whose `raw` is the error.
 */
export function errorLogSerializer(value: unknown): unknown {
  if (isLoggableError(value)) return value;
  const raw = typeof value === 'object' && value !== null && 'raw' in value ? value.raw : value;
  return loggableError(raw ?? value);
}

/**
 * One line for a log message or a stored failure reason: `Type: message`, each cause after it
 * as ` ← Type [code]: message` (up to `links` links in all), a failed statement by its opening.
 */
export function errorSummary(error: unknown, links = MAX_DEPTH + 1): string {
  const parts: string[] = [];
  for (let record: LoggableError | undefined = loggableError(error); record && parts.length < links; record = record.cause) {
    const code = record.sqlState ?? record.code;
    const message = record.statement ? `${record.message} (${record.statement.head})` : record.message;
    parts.push(`${record.type}${code ? ` [${code}]` : ''}: ${message}`);
  }
  return parts.join(' ← ');
}

/** A short hash to tell two values apart in logs without writing them. */
export function textFingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function typeName(e: ErrorLike): string {
  // pg-protocol names its DatabaseError "error" (and PGlite's bundle minifies the class name).
  if (e.name === 'error' && ownSqlState(e)) return 'DatabaseError';
  const name = typeof e.name === 'string' && e.name !== 'Error' ? e.name : e.constructor?.name;
  return typeof name === 'string' && /^[\w.$]{1,64}$/.test(name) ? name : 'Error';
}

/** The error's own SQLSTATE (its cause's is reported on the cause's record). */
function ownSqlState(e: ErrorLike): string | undefined {
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
}

/** Names the store reports about the failure (constraint, table...): ours, not the tenant's. */
function storeIdentifiers(error: object): Set<string> {
  const names = new Set<string>();
  for (let current = error as ErrorLike | undefined, depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    for (const key of ['constraint', 'table', 'column', 'schema', 'dataType', 'routine']) {
      if (typeof current[key] === 'string') names.add(current[key]);
    }
    current = current.cause as ErrorLike | undefined;
  }
  return names;
}

/** Drizzle appends the parameters after "\nparams: "; nothing after it is ever kept. */
function withoutParams(message: string): string {
  const at = message.indexOf('\nparams:');
  return at >= 0 ? message.slice(0, at) : message;
}

// A quoted run ("…", '…', `…`), and PostgreSQL's "Key (name)=(value)".
const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|'')*'|`[^`]*`/g;
const KEY_VALUES = /\([^()]*\)=\([^()]*\)/g;

function scrub(message: string, identifiers: Set<string>): string {
  const scrubbed = message
    .replace(KEY_VALUES, '(…)=(…)')
    .replace(QUOTED, (run) => {
      const inner = run.slice(1, -1);
      return identifiers.has(inner) ? run : `${run[0]}[${inner.length} chars]${run[run.length - 1]}`;
    });
  return scrubbed.length > MAX_MESSAGE ? `${scrubbed.slice(0, MAX_MESSAGE)}…` : scrubbed;
}

/**
 * A statement's opening words say which one failed ("insert into "entities" ("tenant_id", …"):
 * drizzle writes values as placeholders, and any literal a raw fragment inlined is replaced.
 */
function statementFacts(query: string, params: unknown): NonNullable<LoggableError['statement']> {
  const head = query.replace(/'(?:[^']|'')*'/g, "'?'").replace(/\s+/g, ' ').slice(0, STATEMENT_HEAD);
  return {
    head,
    chars: query.length,
    params: Array.isArray(params) ? params.length : 0,
    sha256: textFingerprint(query),
  };
}
