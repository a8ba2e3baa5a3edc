// Deep paths, as cpu-tasks.ts does: `@loci/llm`'s index would load the providers' SDKs and NestJS.
import { normalizeEntityName } from '@loci/common';
import type { EdgeRow, LockedEntity } from '@loci/db';
import { extractLocally } from '../../../llm/src/local/extractor';
import { hashEmbed } from '../../../llm/src/local/hashing.features';
import { HONORIFICS } from '../../../llm/src/local/lexicon';
import { LOCAL_EMBEDDING_MODEL } from '../../../llm/src/local/models';
import fixture from '../../../llm/src/local/fixtures/state-changes.json';
import { liveEdgesWanted, planEdges, type ResolvedEnding, type ResolvedFact } from './edge-plan';
import { entityNameText } from './embedding-texts';
import { planEntities } from './entity-plan';
import { normalizeRelation } from './names';
import { fullerNames, namesFound } from './shorter-names';
import { isSymmetric, supersededBy } from './temporal-rules';

/**
 * Changes of state, measured offline (issue 36.4): each pair of the fixture
 * (libs/llm/src/local/fixtures/state-changes.json) is remembered as two texts, one after the
 * other, into an empty graph held in memory, through what ingestion does with a text on the
 * offline provider: `extractLocally` with the text's reference date, the relations' endpoints
 * added as entities, names resolved to the graph's entities (the same normalised name, else the
 * closest name vector of the hashing embedder at the default threshold, `planEntities`), and the
 * store's supersession rule (`planEdges`, the pure function GraphWriter applies in its
 * transaction). No database: the graph is two arrays, and the rows the store would lock are the
 * ones GraphWriter asks `lockLiveEdges` for (`liveEdgesWanted`).
 *
 * A change pair counts when the fact the first text stated (the fixture's `ended`) is stored and
 * the second text ends it (an `expired_at`, or an `invalid_at` no later than the second text's
 * date, that it did not have). A control pair is wrong when the second text ends any fact the
 * first one stored.
 */

export interface Fact {
  subject: string;
  relation: string;
  object: string;
}

export interface StateChangePair {
  id: string;
  part: 'tuning' | 'held-out';
  category: string;
  kind: 'change' | 'control';
  state: string;
  change: string;
  ended?: Fact;
  kept?: Fact;
  new?: Fact;
  stateDate?: string;
  changeDate?: string;
}

export interface StateChangeFixture {
  stateDate: string;
  changeDate: string;
  pairs: StateChangePair[];
}

export interface StoredFact {
  source: string;
  relation: string;
  target: string;
  validAt: string | null;
  invalidAt: string | null;
  expired: boolean;
}

export interface PairResult {
  pair: StateChangePair;
  /** The first text stored the fact the pair is about (`ended` or `kept`). */
  stateFound: boolean;
  /** A change pair: that fact was ended by the second text. */
  ended: boolean;
  /** A control pair: some fact of the first text was ended by the second. */
  wronglyEnded: boolean;
  /** The pair names a new fact and the graph holds it live. */
  newFound: boolean | null;
  /** What the graph held after each text (for reading a failure). */
  afterState: StoredFact[];
  afterChange: StoredFact[];
}

export interface PartRates {
  changes: number;
  ended: number;
  controls: number;
  wronglyEnded: number;
  stateFound: number;
  newPairs: number;
  newFound: number;
}

export const STATE_CHANGES: StateChangeFixture = fixture as StateChangeFixture;

/** The store's default entity match threshold (LOCI_ENTITY_MATCH_THRESHOLD). */
const RESOLUTION_THRESHOLD = 0.75;
const DIMENSIONS = 1024;

interface MemoryEntity {
  id: number;
  name: string;
  normalizedName: string;
  nameVector: number[];
  description: string | null;
  type: string | null;
}

/** A graph in memory: the rows ingestion reads and writes for entities and edges. */
class MemoryGraph {
  readonly entities: MemoryEntity[] = [];
  readonly edges: EdgeRow[] = [];
  private nextEntity = 1;
  private nextEdge = 1;

  remember(text: string, referenceDate: Date): void {
    const extraction = extractLocally(text, { referenceDate });
    const named = new Map<string, { name: string; type: string; description: string }>();
    const add = (name: string, type: string, description: string) => {
      const key = normalizeEntityName(name);
      if (key && !named.has(key)) named.set(key, { name, type, description });
    };
    for (const e of extraction.entities) add(e.name, e.type, e.description);
    // Entities a relation names but the extraction did not list (DocumentIngester does the same).
    for (const r of extraction.relations) for (const name of [r.source, r.target]) add(name, 'concept', '');
    const list = [...named].map(([key, e]) => ({
      key,
      entity: { ...e, nameVector: hashEmbed(entityNameText(e.name), DIMENSIONS), textVector: [] as number[] },
    }));

    const nearest = new Map<string, { id: number; similarity: number }>();
    // GraphWriter's look-up of the names and of short names' fuller names ("McGill" → "mcgill university"): the first row of each.
    const fuller = fullerNames(list);
    const found = new Map<string, number>();
    for (const row of this.entities) if (!found.has(row.normalizedName) && (fuller.has(row.normalizedName) || named.has(row.normalizedName))) found.set(row.normalizedName, row.id);
    const { exact, shorter } = namesFound([...named.keys()], fuller, found);
    for (const [key, id] of shorter) nearest.set(key, { id, similarity: 1 });
    for (const { key, entity } of list) {
      if (exact.has(key) || shorter.has(key)) continue;
      let best: { id: number; similarity: number } | undefined;
      for (const row of this.entities) {
        const similarity = cosine(entity.nameVector, row.nameVector);
        if (similarity >= RESOLUTION_THRESHOLD && (!best || similarity > best.similarity)) best = { id: row.id, similarity };
      }
      if (best) nearest.set(key, best);
    }
    const rows = new Map<number, LockedEntity>(
      this.entities.map((row) => [row.id, { id: row.id, description: row.description, type: row.type, embeddingModel: LOCAL_EMBEDDING_MODEL }]),
    );
    const plan = planEntities({ named: list, exact, nearest, rows, threshold: RESOLUTION_THRESHOLD, embeddingModel: LOCAL_EMBEDDING_MODEL });
    for (const node of plan.created) {
      node.id = this.nextEntity++;
      this.entities.push({
        id: node.id,
        name: node.insert!.name,
        normalizedName: node.insert!.normalizedName,
        nameVector: node.insert!.nameVector,
        description: node.description,
        type: node.type,
      });
    }

    // GraphWriter's resolvedFacts: both endpoints resolved, two different entities, each fact once.
    const facts: ResolvedFact[] = [];
    const seen = new Set<string>();
    for (const relation of extraction.relations) {
      const sourceId = plan.byKey.get(normalizeEntityName(relation.source))?.id;
      const targetId = plan.byKey.get(normalizeEntityName(relation.target))?.id;
      const name = normalizeRelation(relation.relation);
      if (sourceId === undefined || targetId === undefined || sourceId === targetId) continue;
      const key = `${sourceId}:${name}:${targetId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      facts.push({ relation: { ...relation, relation: name, vector: [] }, sourceId, targetId });
    }
    // Endings with no object ("Priya retired"): the subject's live facts of the slots they end.
    const endings: ResolvedEnding[] = [];
    for (const ending of extraction.endings ?? []) {
      const sourceId = plan.byKey.get(normalizeEntityName(ending.subject))?.id;
      if (sourceId !== undefined) endings.push({ sourceId, relation: normalizeRelation(ending.relation), validAt: ending.valid_at, noun: ending.noun });
    }
    // lockLiveEdges: the rows GraphWriter locks (liveEdgesWanted).
    const existing = new Set([...plan.byKey.values()].filter((node) => !node.insert).map((node) => node.id!));
    const { wanted, atTargets } = liveEdgesWanted(facts, endings, existing);
    const bySource = new Map(wanted.map((w) => [w.sourceId, new Set(w.relations)]));
    const byTarget = new Map(atTargets.map((w) => [w.targetId, new Set(w.relations)]));
    const live = this.edges.filter((e) => e.expiredAt === null && (bySource.get(e.sourceId)?.has(e.relation) || byTarget.get(e.targetId)?.has(e.relation)));
    const edges = planEdges(live, facts, referenceDate, referenceDate, endings);
    for (const node of edges.created) {
      this.edges.push({
        id: this.nextEdge++,
        sourceId: node.sourceId,
        targetId: node.targetId,
        relation: node.relation,
        description: node.description,
        weight: node.weight,
        validAt: node.validAt,
        invalidAt: node.invalidAt,
        expiredAt: node.expiredAt,
      } as EdgeRow);
    }
    for (const node of edges.changed) {
      const row = this.edges.find((e) => e.id === node.id)!;
      Object.assign(row, { weight: node.weight, description: node.description, validAt: node.validAt, invalidAt: node.invalidAt, expiredAt: node.expiredAt });
    }
  }

  nameOf(id: number): string {
    return this.entities.find((e) => e.id === id)?.name ?? `#${id}`;
  }

  facts(): StoredFact[] {
    return this.edges.map((e) => ({
      source: this.nameOf(e.sourceId),
      relation: e.relation,
      target: this.nameOf(e.targetId),
      validAt: e.validAt ? e.validAt.toISOString().slice(0, 10) : null,
      invalidAt: e.invalidAt ? e.invalidAt.toISOString().slice(0, 10) : null,
      expired: e.expiredAt !== null,
    }));
  }
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Titles before a person's name, which the extractor leaves out of the names it gives people (mentions.ts). */
const TITLES = new Set([...HONORIFICS, 'councillor', 'cllr']);

/**
 * An entity's name stands for the expected one when it is that name or contains it as whole
 * words ("Dr. Shaw" for "Shaw"), the expected name's titles aside ("Dr Hannah Berg" is the
 * entity "Hannah Berg": people's names are stored without them).
 */
export function sameName(actual: string, expected: string): boolean {
  const a = normalizeEntityName(actual);
  const words = normalizeEntityName(expected).split(' ');
  while (words.length > 1 && TITLES.has(words[0])) words.shift();
  const e = words.join(' ');
  return a === e || ` ${a} `.includes(` ${e} `);
}

/** The relation is the expected one or one the store treats as the same slot (works_at, joined, …). */
export function sameRelation(actual: string, expected: string): boolean {
  return actual === expected || supersededBy(expected).includes(actual);
}

// ("Joe dates Kim" is the fact "Kim dates Joe": a symmetric relation either way round.)
const matches = (fact: StoredFact, wanted: Fact) =>
  sameRelation(fact.relation, wanted.relation) &&
  ((sameName(fact.source, wanted.subject) && sameName(fact.target, wanted.object)) ||
    (isSymmetric(fact.relation) && sameName(fact.source, wanted.object) && sameName(fact.target, wanted.subject)));

export function measurePair(pair: StateChangePair, fixtureDates: Pick<StateChangeFixture, 'stateDate' | 'changeDate'> = STATE_CHANGES): PairResult {
  const graph = new MemoryGraph();
  graph.remember(pair.state, new Date(pair.stateDate ?? fixtureDates.stateDate));
  const afterState = graph.facts();
  const liveBefore = new Set(graph.edges.filter((e) => e.invalidAt === null && e.expiredAt === null).map((e) => e.id));
  const about = pair.kind === 'change' ? pair.ended! : pair.kept!;
  const stated = graph.edges.filter((e, i) => liveBefore.has(e.id) && matches(afterState[i], about)).map((e) => e.id);

  const changeDate = new Date(pair.changeDate ?? fixtureDates.changeDate);
  graph.remember(pair.change, changeDate);
  const afterChange = graph.facts();
  // Ended by the time of the second text: an end in the future ("will step down next year") is not one yet.
  const endedIds = new Set(
    graph.edges.filter((e) => liveBefore.has(e.id) && (e.expiredAt !== null || (e.invalidAt !== null && e.invalidAt <= changeDate))).map((e) => e.id),
  );
  const newFound = pair.new ? afterChange.some((f) => !f.expired && f.invalidAt === null && matches(f, pair.new!)) : null;
  return {
    pair,
    stateFound: stated.length > 0,
    ended: stated.some((id) => endedIds.has(id)),
    wronglyEnded: pair.kind === 'control' && endedIds.size > 0,
    newFound,
    afterState,
    afterChange,
  };
}

export function measureStateChanges(pairs: StateChangePair[] = STATE_CHANGES.pairs): PairResult[] {
  return pairs.map((pair) => measurePair(pair));
}

export function ratesOf(results: PairResult[]): PartRates {
  const changes = results.filter((r) => r.pair.kind === 'change');
  const controls = results.filter((r) => r.pair.kind === 'control');
  const withNew = changes.filter((r) => r.newFound !== null);
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  return {
    changes: changes.length,
    ended: share(changes.filter((r) => r.ended).length, changes.length),
    controls: controls.length,
    wronglyEnded: share(controls.filter((r) => r.wronglyEnded).length, controls.length),
    stateFound: share(results.filter((r) => r.stateFound).length, results.length),
    newPairs: withNew.length,
    newFound: share(withNew.filter((r) => r.newFound).length, withNew.length),
  };
}
