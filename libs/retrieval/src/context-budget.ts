import { countTokens, prefixWithinTokens } from '@loci/llm';
import type { RetrievalBudgets, RetrievedChunk, RetrievedEntity, RetrievedRelation } from './retrieval.types';

/**
 * A chunk is cut (rather than dropped) only when at least this many tokens of budget are
 * left for it: a few words of a passage help nobody.
 */
export const MIN_CHUNK_CUT_TOKENS = 64;

/** `name (type): description`, as the entity is shown to a model. */
export function renderEntity(entity: Pick<RetrievedEntity, 'name' | 'type' | 'description'>): string {
  return `${entity.name}${entity.type ? ` (${entity.type})` : ''}: ${entity.description ?? ''}`;
}

/** `source relation target: description [valid_at, invalid_at]`, dates as YYYY-MM-DD. */
export function renderRelation(
  relation: Pick<RetrievedRelation, 'source' | 'relation' | 'target' | 'description' | 'validAt' | 'invalidAt'>,
): string {
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '');
  return `${relation.source} ${relation.relation} ${relation.target}: ${relation.description ?? ''} [${day(relation.validAt)}, ${day(relation.invalidAt)}]`;
}

/** Renderings whose token count is remembered; past this many the memo starts over. */
const MAX_REMEMBERED_COUNTS = 8192;
const rememberedCounts = new Map<string, number>();

/**
 * countTokens of an entity's or relation's rendering, remembered: the same entities and facts
 * come back question after question (a tenant's hubs above all), and tokenizing their lines
 * again was the largest allocation of a mix question (~0.6 MB of the tokenizer's match
 * objects) and ~6% of its CPU. A pure function of the text, so the memo is exact; ~1.5 MB at
 * most.
 */
function countRenderedTokens(text: string): number {
  let tokens = rememberedCounts.get(text);
  if (tokens === undefined) {
    tokens = countTokens(text);
    if (rememberedCounts.size >= MAX_REMEMBERED_COUNTS) rememberedCounts.clear();
    rememberedCounts.set(text, tokens);
  }
  return tokens;
}

/** Keeps the leading items while their rendered tokens fit `budget`; the rest are dropped. `used`: the kept items' tokens. */
export function fitToBudget<T>(items: T[], render: (item: T) => string, budget: number): { kept: T[]; truncated: boolean; used: number } {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    const tokens = countRenderedTokens(render(items[i]));
    if (used + tokens > budget) return { kept: items.slice(0, i), truncated: true, used };
    used += tokens;
  }
  return { kept: items, truncated: false, used };
}

/**
 * Keeps the leading chunks that fit; the first one that does not is cut to the budget left
 * (at a word boundary) when enough is left, and everything after it is dropped. A chunk counts
 * as its stored `tokenCount` when it has one (the same counter, run at ingestion): tokenizing
 * every retrieved chunk again was ~9% of a naive question's CPU.
 */
export function fitChunks(chunks: RetrievedChunk[], budget: number): { kept: RetrievedChunk[]; truncated: boolean } {
  let used = 0;
  for (let i = 0; i < chunks.length; i++) {
    const tokens = chunks[i].tokenCount ?? countTokens(chunks[i].text);
    if (used + tokens <= budget) {
      used += tokens;
      continue;
    }
    const left = budget - used;
    const kept = chunks.slice(0, i);
    if (left >= MIN_CHUNK_CUT_TOKENS) {
      const { tokenCount: _whole, ...cut } = chunks[i];
      const text = cutToTokens(cut.text, left);
      if (text.length > 0) kept.push({ ...cut, text });
    }
    return { kept, truncated: true };
  }
  return { kept: chunks, truncated: false };
}

/** The longest prefix of `text` (ending at whitespace when possible) of at most `maxTokens`. */
export function cutToTokens(text: string, maxTokens: number): string {
  const prefix = prefixWithinTokens(text, maxTokens);
  if (prefix.length === text.length) return text;
  const boundary = prefix.search(/\s\S*$/);
  return (boundary > 0 ? prefix.slice(0, boundary) : prefix).trimEnd();
}

/**
 * Cuts each section to its budget. With `totalTokens` (a caller's `max_total_tokens`), each
 * section's budget is first scaled to its share of the total, and what the entities and
 * relations leave of theirs goes to the chunks, which carry the evidence.
 */
export function applyBudgets(
  context: { chunks: RetrievedChunk[]; entities: RetrievedEntity[]; relations: RetrievedRelation[] },
  budgets: RetrievalBudgets,
  totalTokens?: number,
): { chunks: RetrievedChunk[]; entities: RetrievedEntity[]; relations: RetrievedRelation[]; truncated: boolean } {
  const whole = budgets.entityTokens + budgets.relationTokens + budgets.chunkTokens;
  const share = (budget: number) => (totalTokens === undefined || totalTokens >= whole ? budget : Math.floor((budget * totalTokens) / whole));
  const entities = fitToBudget(context.entities, renderEntity, share(budgets.entityTokens));
  const relations = fitToBudget(context.relations, renderRelation, share(budgets.relationTokens));
  const chunkBudget =
    totalTokens === undefined ? budgets.chunkTokens : Math.min(budgets.chunkTokens, totalTokens - entities.used - relations.used);
  const chunks = fitChunks(context.chunks, chunkBudget);
  return {
    entities: entities.kept,
    relations: relations.kept,
    chunks: chunks.kept,
    truncated: entities.truncated || relations.truncated || chunks.truncated,
  };
}
