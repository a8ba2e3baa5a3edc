import { normalizeEntityName } from '../libs/ingest/src/graph/names';
import { createRng, Rng, ZipfSampler } from './prng';
import {
  describeEntity,
  DOCUMENT_KINDS,
  drawName,
  ENTITY_TYPE_SHARES,
  EntityType,
  FactState,
  FactTime,
  RELATIONS,
  RelationTemplate,
  slug,
  tidy,
} from './vocabulary';

/**
 * The pure half of the seed: what one tenant's documents say, as the ingestion pipeline would
 * have turned them into chunks, entities and facts. No database here, so a seed can be checked
 * for determinism and skew without one; `store-writer.ts` writes what this yields.
 */

export interface TenantPlan {
  /** 0 is the large tenant. */
  index: number;
  large: boolean;
  edges: number;
  /** PRNG stream prefix (default `tenant:<index>`); a gb dataset graph has its own. */
  stream?: string;
}

/** One large tenant with `largeShare` of the edges, the rest split evenly over the small ones. */
export function planTenants(tenants: number, edges: number, largeShare = 0.8): TenantPlan[] {
  if (!Number.isInteger(tenants) || tenants < 1) throw new RangeError(`--tenants must be at least 1, got ${tenants}`);
  if (!Number.isInteger(edges) || edges < tenants) throw new RangeError(`--edges must be at least --tenants (${tenants}), got ${edges}`);
  const largeEdges = tenants === 1 ? edges : Math.max(1, Math.round(edges * largeShare));
  const rest = edges - largeEdges;
  const small = tenants - 1;
  return [
    { index: 0, large: true, edges: largeEdges },
    ...Array.from({ length: small }, (_, i) => ({
      index: i + 1,
      large: false,
      edges: Math.floor(rest / small) + (i < rest % small ? 1 : 0),
    })),
  ].filter((plan) => plan.edges > 0);
}

export interface GenEntity {
  name: string;
  normalizedName: string;
  type: EntityType;
  description: string;
  /** Set by the writer once the row exists. */
  dbId?: number;
}

export interface GenFact {
  /** Position of the fact in its tenant (0-based), stable for a seed. */
  ordinal: number;
  template: RelationTemplate;
  source: GenEntity;
  target: GenEntity;
  description: string;
  weight: number;
  validAt: Date;
  invalidAt: Date | null;
  state: FactState;
  dbId?: number;
}

export interface GenChunk {
  index: number;
  text: string;
  facts: GenFact[];
  /** Every entity the chunk names (provenance), and those it introduces (rows to create). */
  mentions: GenEntity[];
  introduces: GenEntity[];
  dbId?: number;
}

export interface GenDocument {
  name: string;
  text: string;
  documentDate: Date;
  loadedAt: Date;
  chunks: GenChunk[];
  dbId?: number;
}

/** Knobs of the shape; the defaults give ~0.45 entities per edge and a few hubs of high degree. */
export interface ShapeOptions {
  /** Pool of candidate entities per edge (those never drawn are never written). */
  entitiesPerEdge: number;
  /** Zipf exponent of endpoint popularity within a type. */
  zipfExponent: number;
  /** Share of facts that involve the document's subject. */
  anchorShare: number;
}

export const DEFAULT_SHAPE: ShapeOptions = { entitiesPerEdge: 0.6, zipfExponent: 1.05, anchorShare: 0.5 };

const DAY_MS = 86_400_000;
const utc = (year: number, month: number, day = 1) => new Date(Date.UTC(year, month, day));

/** One tenant's entities, created (named, described) the first time a fact draws them. */
class EntityPool {
  private readonly byType = new Map<EntityType, { sampler: ZipfSampler; items: Array<GenEntity | undefined> }>();
  private readonly taken = new Set<string>();

  constructor(
    size: number,
    exponent: number,
    private readonly names: Rng,
  ) {
    for (const [type, share] of ENTITY_TYPE_SHARES) {
      const n = Math.max(3, Math.round(size * share));
      this.byType.set(type, { sampler: new ZipfSampler(n, exponent), items: new Array(n) });
    }
  }

  draw(rng: Rng, type: EntityType): GenEntity {
    const slot = this.byType.get(type)!;
    const rank = slot.sampler.draw(rng);
    return (slot.items[rank] ??= this.create(type));
  }

  private create(type: EntityType): GenEntity {
    for (let attempt = 0; ; attempt++) {
      let name = drawName(this.names, type, attempt);
      if (attempt >= 12) name = `${name} ${attempt}`; // a crowded name space still ends
      const normalizedName = normalizeEntityName(name);
      if (this.taken.has(normalizedName)) continue;
      this.taken.add(normalizedName);
      return { name, normalizedName, type, description: describeEntity(this.names, name, type) };
    }
  }
}

/**
 * The documents of one tenant, in order, until `plan.edges` facts are stated. The same seed,
 * plan and `now` give the same documents, byte for byte.
 */
export function* generateDocuments(
  plan: TenantPlan,
  seed: number,
  now: Date,
  shape: ShapeOptions = DEFAULT_SHAPE,
): Generator<GenDocument> {
  const stream = plan.stream ?? `tenant:${plan.index}`;
  const rng = createRng(seed, `${stream}:facts`);
  const pool = new EntityPool(Math.ceil(plan.edges * shape.entitiesPerEdge) + 4, shape.zipfExponent, createRng(seed, `${stream}:names`));
  const seen = new Set<string>();
  const introduced = new Set<GenEntity>();
  let stated = 0;
  let failures = 0;
  for (let docIndex = 0; stated < plan.edges; docIndex++) {
    const anchor = pool.draw(rng, pickType(rng));
    const documentDate = utc(rng.between(2012, 2025), rng.int(12), rng.between(1, 28));
    const loadedAt = new Date(now.getTime() - rng.between(0, 720) * DAY_MS - rng.int(DAY_MS));
    const chunks: GenChunk[] = [];
    const chunkCount = rng.between(1, 3);
    for (let c = 0; c < chunkCount && stated < plan.edges; c++) {
      const wanted = Math.min(rng.between(6, 12), plan.edges - stated);
      const facts: GenFact[] = [];
      const sentences: string[] = [];
      const mentions = new Set<GenEntity>();
      const introduces: GenEntity[] = [];
      while (facts.length < wanted) {
        const fact = drawFact(rng, pool, anchor, shape.anchorShare, documentDate, stated);
        const key = `${fact.source.normalizedName}|${fact.template.relation}|${fact.target.normalizedName}`;
        if (fact.source === fact.target || seen.has(key)) {
          // A tiny graph runs out of new pairs near its hubs; give up on the chunk, not the run.
          if (++failures > 50 * plan.edges + 1000) throw new Error('could not draw enough distinct facts; raise --edges');
          if (facts.length > 0 && failures % 20 === 0) break;
          continue;
        }
        seen.add(key);
        for (const entity of [fact.source, fact.target]) {
          mentions.add(entity);
          if (!introduced.has(entity)) {
            introduced.add(entity);
            introduces.push(entity);
            sentences.push(entity.description);
          }
        }
        sentences.push(fact.description);
        facts.push(fact);
        stated++;
      }
      chunks.push({ index: c, text: paragraphs(sentences), facts, mentions: [...mentions], introduces });
    }
    const kind = DOCUMENT_KINDS[rng.int(DOCUMENT_KINDS.length)];
    yield {
      name: `${slug(anchor.name)}-${kind}-${docIndex + 1}.txt`,
      text: chunks.map((chunk) => chunk.text).join('\n\n'),
      documentDate,
      loadedAt,
      chunks,
    };
  }
}

function pickType(rng: Rng): EntityType {
  let u = rng.next();
  for (const [type, share] of ENTITY_TYPE_SHARES) {
    if ((u -= share) < 0) return type;
  }
  return ENTITY_TYPE_SHARES[0][0];
}

function drawFact(rng: Rng, pool: EntityPool, anchor: GenEntity, anchorShare: number, documentDate: Date, ordinal: number): GenFact {
  const anchored = rng.chance(anchorShare);
  const candidates = anchored ? RELATIONS.filter((r) => r.source === anchor.type || r.target === anchor.type) : RELATIONS;
  const template = rng.pick(candidates.length > 0 ? candidates : RELATIONS);
  const anchorIsSource = anchored && template.source === anchor.type && (template.target !== anchor.type || rng.chance(0.5));
  const anchorIsTarget = anchored && !anchorIsSource && template.target === anchor.type;
  const source = anchorIsSource ? anchor : pool.draw(rng, template.source);
  const target = anchorIsTarget ? anchor : pool.draw(rng, template.target);

  const docYear = documentDate.getUTCFullYear();
  const state: FactState = template.exclusive && rng.chance(0.06) ? 'superseded' : rng.chance(0.08) ? 'ended' : 'live';
  const time: FactTime = {};
  if (state !== 'live') {
    const since = rng.between(2000, docYear - 1);
    time.since = { year: since, month: rng.int(12) };
    time.until = { year: rng.between(since + 1, docYear), month: 0 };
  } else if (rng.chance(0.6)) {
    time.since = { year: rng.between(2005, docYear), month: rng.int(12) };
  }
  return {
    ordinal,
    template,
    source,
    target,
    description: tidy(template.sentence(source.name, target.name, rng, time, state)),
    weight: rng.chance(0.2) ? rng.between(2, 5) : 1,
    validAt: time.since ? utc(time.since.year, time.since.month) : documentDate,
    invalidAt: time.until ? utc(time.until.year, time.until.month) : null,
    state,
  };
}

/** Sentences joined into paragraphs of four, as a document would be. */
function paragraphs(sentences: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < sentences.length; i += 4) out.push(sentences.slice(i, i + 4).join(' '));
  return out.join('\n\n');
}
