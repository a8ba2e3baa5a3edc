import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GenFact } from './generator';
import type { Rng } from './prng';

/**
 * Benchmark questions, written from the same facts the seed stored: each asks about one live
 * edge of the large tenant (its id is known), with the keyword lists a client would send
 * (`ll_keywords`: the subject's name; `hl_keywords`: the relation's theme).
 */
export interface BenchQuestion {
  query: string;
  hl_keywords: string[];
  ll_keywords: string[];
  answer: { edge_id: number; document_id: number; relation: string; source: string; target: string; ended: boolean };
}

export interface QuestionsFile {
  version: 1;
  seed: number;
  edges: number;
  tenants: number;
  created_at: string;
  /** Where the seed went (host/port/database, no credentials); the bench warns on a mismatch. */
  database: string;
  large_tenant: {
    tenant_id: string;
    graph_id: number;
    /** An API key of the large tenant (bench data only: never commit it). */
    api_key: string;
    edges: number;
    entities: number;
    chunks: number;
    documents: number;
  };
  small_tenants: Array<{ tenant_id: string; graph_id: number; edges: number }>;
  questions: BenchQuestion[];
  /** The large tenant's gb dataset (bench:seed --gb-edges), with questions from its facts. */
  gb?: {
    user_id: string;
    dataset: string;
    graph_id: number;
    edges: number;
    entities: number;
    chunks: number;
    texts: number;
    questions: BenchQuestion[];
  };
}

export function questionFor(fact: GenFact, documentId: number): BenchQuestion {
  const { template, source, target } = fact;
  return {
    query: template.question(source.name),
    hl_keywords: [...template.keywords],
    ll_keywords: [source.name],
    answer: {
      edge_id: fact.dbId!,
      document_id: documentId,
      relation: template.relation,
      source: source.name,
      target: target.name,
      ended: fact.invalidAt !== null,
    },
  };
}

/** Keeps a uniform sample of `size` items from a stream (reservoir sampling, seeded). */
export class Reservoir<T> {
  readonly items: T[] = [];
  private seen = 0;

  constructor(
    private readonly size: number,
    private readonly rng: Rng,
  ) {}

  offer(item: T): void {
    const i = this.seen++;
    if (i < this.size) this.items.push(item);
    else {
      const j = this.rng.int(i + 1);
      if (j < this.size) this.items[j] = item;
    }
  }
}

/** host:port/database of a connection string, without user or password. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'unparsable DATABASE_URL';
  }
}

export const questionsPath = (dataDir: string, seed: number, edges: number) => join(dataDir, `questions-${seed}-${edges}.json`);

export function writeQuestionsFile(path: string, file: QuestionsFile): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

export function readQuestionsFile(path: string): QuestionsFile {
  const file = JSON.parse(readFileSync(path, 'utf8')) as QuestionsFile;
  if (file.version !== 1 || !Array.isArray(file.questions) || file.questions.length === 0 || !file.large_tenant?.api_key) {
    throw new Error(`${path} is not a questions file written by bench:seed (or it holds no question)`);
  }
  return file;
}

/** The questions file for (seed, edges), or the newest one in `dataDir` when edges is not given. */
export function findQuestionsFile(dataDir: string, seed: number | undefined, edges: number | undefined): string {
  if (edges !== undefined) {
    const path = questionsPath(dataDir, seed ?? 1, edges);
    if (!existsSync(path)) throw new Error(`no ${path}: run npm run bench:seed -- --edges ${edges}${seed ? ` --seed ${seed}` : ''} first`);
    return path;
  }
  const candidates = existsSync(dataDir)
    ? readdirSync(dataDir)
        .filter((f) => /^questions-\d+-\d+\.json$/.test(f) && (seed === undefined || f.startsWith(`questions-${seed}-`)))
        .map((f) => join(dataDir, f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (candidates.length === 0) throw new Error(`no questions file in ${dataDir}: run npm run bench:seed first`);
  return candidates[0];
}
