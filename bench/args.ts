import { parseArgs, ParseArgsConfig } from 'node:util';

/** A command-line mistake: the CLIs print it with their usage and exit 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true as const, strict: true as const });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/_/g, '').replace(/k$/i, '000').replace(/m$/i, '000000'));
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

export function decimal(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}, not "${raw}"`);
  return value;
}

/** "1,16" → [1, 16]. */
export function integerList(name: string, raw: string | undefined, fallback: number[], min: number, max: number): number[] {
  if (raw === undefined) return fallback;
  return raw.split(',').map((part) => integer(name, part.trim(), 0, min, max));
}

/** "mix,local" → ['mix', 'local'], each one of `allowed`. */
export function choiceList<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] {
  if (raw === undefined) return [...fallback];
  const values = raw.split(',').map((v) => v.trim());
  const wrong = values.filter((v) => !allowed.includes(v as T));
  if (wrong.length > 0) throw new UsageError(`--${name}: unknown ${wrong.join(', ')} (one of ${allowed.join(', ')})`);
  return values as T[];
}
