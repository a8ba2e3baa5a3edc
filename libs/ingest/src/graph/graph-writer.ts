import { Inject, Injectable, Optional } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { Db, GraphWritesRepository } from '@loci/db';
import { placeCoordinates } from '@loci/geo';
import { CpuPool } from '../cpu/cpu-pool';
import { EdgeNode, liveEdgesWanted, planEdges, ResolvedEnding, ResolvedFact } from './edge-plan';
import { EntityNode, planEntities } from './entity-plan';
import { dropStatementsOfStaleFacts } from './live-descriptions';
import { normalizeEntityName, normalizeRelation } from './names';
import { fullerNames, namesFound } from './shorter-names';
import { similarEarlierNames, type SimilarName } from './similar-names';
import { emptyChanges, EntityToWrite, ExtractionWrite, GraphChanges, pushOnce } from './write-types';

export * from './write-types';

/**
 * Up to this many names of one text are compared on the calling thread (see similarEarlier):
 * ~120 pairs, well under a millisecond. More go to the worker threads, below the request
 * thread's priority: at 64 (~2,000 pairs), ingestion's comparisons were a visible share of the
 * request thread that every tenant's questions share (the noisy-neighbour bench's profile).
 */
const NAMES_COMPARED_INLINE = 16;

/**
 * Writes one text's extraction into a graph, inside the caller's transaction: resolves
 * entities (same normalised name, else a close enough name vector), merges repeated facts,
 * applies temporal supersession, and records provenance for every entity and edge it touches.
 * Running it twice for the same text adds nothing new (a retried chunk is idempotent).
 *
 * The rules run in memory (`planEntities`, `planEdges`) on what the chunk's statements read,
 * with the result they would have one name and one fact at a time; the store sees a fixed
 * number of statements per chunk, and takes its locks in one order (see
 * GraphWritesRepository).
 */
@Injectable()
export class GraphWriter {
  constructor(
    private readonly writes: GraphWritesRepository,
    private readonly cpu: CpuPool,
    @Optional() @Inject(SETTINGS) private readonly settings?: Settings,
  ) {}

  async write(db: Db, input: ExtractionWrite): Promise<GraphChanges> {
    const { tenantId, graphId } = input;
    const changes = emptyChanges();
    const named = distinctNames(input.entities);
    if (named.length === 0) return changes;

    // Entities: lock the names, find them, lock the existing rows, then write.
    const keys = named.map((n) => n.key);
    await this.writes.lockEntityNames(db, tenantId, graphId, keys);
    // The text's names and the fuller names of its short ones ("McGill" → "mcgill university"), in one statement.
    const fuller = fullerNames(named);
    const { exact, shorter } = namesFound(keys, fuller, await this.writes.entityIdsByNormalizedName(db, tenantId, graphId, [...keys, ...fuller.keys()]));
    const unmatched = named.filter((n) => !exact.has(n.key) && !shorter.has(n.key));
    // Only names the same embedder made are comparable: a graph being re-embedded holds both.
    const found = await this.writes.nearestEntitiesByName(db, tenantId, graphId, unmatched.map((n) => n.entity.nameVector), {
      embeddingModel: input.embeddingModel,
    });
    const nearest = new Map<string, { id: number; similarity: number }>();
    unmatched.forEach((n, i) => {
      const hit = found[i];
      // Below the threshold a stored entity can never be the one a name resolves to.
      if (hit && hit.similarity >= input.resolutionThreshold) nearest.set(n.key, hit);
    });
    // A short name is its fuller name's entity, as surely as a name that differs in nothing.
    for (const [key, id] of shorter) nearest.set(key, { id, similarity: 1 });
    const candidateIds = [...new Set([...exact.values(), ...[...nearest.values()].map((hit) => hit.id)])];
    const rows = await this.writes.lockEntities(db, tenantId, candidateIds);
    const entities = planEntities({
      named,
      exact,
      nearest,
      rows: new Map(rows.map((row) => [row.id, row])),
      threshold: input.resolutionThreshold,
      embeddingModel: input.embeddingModel,
      similarEarlier: await this.similarEarlier(named, input.resolutionThreshold),
    });
    const inserted = await this.writes.insertEntities(
      db,
      entities.created.map((node) => ({
        tenantId,
        graphId,
        name: node.insert!.name,
        normalizedName: node.insert!.normalizedName,
        type: node.type,
        description: node.description,
        embedding: node.insert!.textVector,
        nameEmbedding: node.insert!.nameVector,
        embeddingModel: input.embeddingModel,
      })),
      input.vectorTier,
    );
    const insertedIds = new Map(inserted.map((row) => [row.normalizedName, row.id]));
    for (const node of entities.created) node.id = insertedIds.get(node.insert!.normalizedName);
    if (this.settings?.geo.enabled) await this.locatePlaces(db, tenantId, named, entities.byKey);

    // Edges: lock the live facts of the sources, then write.
    const facts = resolvedFacts(input, entities.byKey);
    const existing = new Set([...entities.byKey.values()].filter((node) => !node.insert).map((node) => node.id!));
    const endings = resolvedEndings(input, entities.byKey);
    const { wanted, atTargets } = liveEdgesWanted(facts, endings, existing);
    const live = await this.writes.lockLiveEdges(db, tenantId, wanted, atTargets);
    const edges = planEdges(live, facts, input.referenceDate, new Date(), endings);
    // The facts this text superseded or ended leave its entities' descriptions before they are written.
    const stale = edges.changes.filter((change) => change.kind === 'superseded' || change.kind === 'ended').map((change) => change.node);
    const rewritten = new Set(dropStatementsOfStaleFacts(entities.byKey.values(), stale));
    for (const node of rewritten) if (!node.insert) node.changed = true;
    await this.writes.updateEntities(
      db,
      tenantId,
      [...new Set(entities.byKey.values())].filter((node) => node.changed).map(entityPatch),
      input.vectorTier,
    );
    for (const { kind, node } of entities.changes) {
      if (kind === 'created') changes.entities.created.push(node.id!);
      else pushOnce(changes.entities[kind === 'matched' && rewritten.has(node) ? 'updated' : kind], node.id!);
    }
    const insertedEdges = await this.writes.insertEdges(
      db,
      edges.created.map((node) => ({
        tenantId,
        graphId,
        sourceId: node.sourceId,
        targetId: node.targetId,
        relation: node.relation,
        description: node.description,
        keywords: node.insert!.keywords,
        weight: node.weight,
        embedding: node.insert!.vector,
        embeddingModel: input.embeddingModel,
        validAt: node.validAt,
        invalidAt: node.invalidAt,
        expiredAt: node.expiredAt,
        artifactId: input.documentId,
      })),
      input.vectorTier,
    );
    const edgeIds = new Map(insertedEdges.map((row) => [factKey(row.sourceId, row.relation, row.targetId), row.id]));
    for (const node of edges.created) node.id = edgeIds.get(factKey(node.sourceId, node.relation, node.targetId));
    await this.writes.updateEdges(db, tenantId, edges.changed.map(edgeState));
    for (const { kind, node } of edges.changes) {
      if (kind === 'updated') pushOnce(changes.edges.updated, node.id!);
      else changes.edges[kind].push(node.id!);
    }

    // An edge's endpoints are named by the same text, so they get its provenance too: deleting
    // another document that also mentioned them never strands this edge.
    await this.writes.addProvenance(db, tenantId, {
      documentId: input.documentId,
      chunkId: input.chunkId,
      entityIds: [...new Set([...entities.byKey.values()].map((node) => node.id!))],
      edgeIds: edges.stated.map((node) => node.id!),
    });
    return changes;
  }

  /**
   * Geo on: the place entities of the text whose name the offline gazetteer knows get its
   * coordinates, once (an entity that has some keeps them), so the nearby search finds them.
   */
  private async locatePlaces(
    db: Db,
    tenantId: string,
    named: Array<{ key: string; entity: EntityToWrite }>,
    byKey: Map<string, EntityNode>,
  ): Promise<void> {
    const located = new Map<number, { id: number; latitude: number; longitude: number }>();
    for (const { key, entity } of named) {
      const node = byKey.get(key);
      if (node?.id === undefined || located.has(node.id)) continue;
      const place = placeCoordinates(entity.name, node.type ?? entity.type);
      if (place) located.set(node.id, { id: node.id, ...place });
    }
    await this.writes.setMissingCoordinates(db, tenantId, [...located.values()]);
  }

  /**
   * Which of the text's names are close to which earlier ones: quadratic in the names (over a
   * thousand in one chunk took seconds), so on a worker thread unless they are few, where the
   * thread's round trip would cost more than the work (NAMES_COMPARED_INLINE).
   */
  private similarEarlier(named: Array<{ entity: EntityToWrite }>, threshold: number): Promise<SimilarName[][]> | SimilarName[][] {
    const vectors = named.map((n) => n.entity.nameVector);
    return vectors.length <= NAMES_COMPARED_INLINE
      ? similarEarlierNames(vectors, threshold)
      : this.cpu.similarEarlierNames(vectors, threshold);
  }
}

/** The text's entities, one per normalised name, in the order it names them. */
function distinctNames(entities: EntityToWrite[]): Array<{ key: string; entity: EntityToWrite }> {
  const named = new Map<string, EntityToWrite>();
  for (const entity of entities) {
    const key = normalizeEntityName(entity.name);
    if (key && !named.has(key)) named.set(key, entity);
  }
  return [...named].map(([key, entity]) => ({ key, entity }));
}

/** Relations with both endpoints resolved to two different entities, each fact once. */
function resolvedFacts(input: ExtractionWrite, byKey: Map<string, EntityNode>): ResolvedFact[] {
  const facts: ResolvedFact[] = [];
  const seen = new Set<string>();
  for (const relation of input.relations) {
    const sourceId = byKey.get(normalizeEntityName(relation.source))?.id;
    const targetId = byKey.get(normalizeEntityName(relation.target))?.id;
    const name = normalizeRelation(relation.relation);
    if (sourceId === undefined || targetId === undefined || sourceId === targetId) continue;
    const key = factKey(sourceId, name, targetId);
    if (seen.has(key)) continue;
    seen.add(key);
    facts.push({ relation: { ...relation, relation: name }, sourceId, targetId });
  }
  return facts;
}

/** Endings with no object whose subject resolved to an entity. */
function resolvedEndings(input: ExtractionWrite, byKey: Map<string, EntityNode>): ResolvedEnding[] {
  const out: ResolvedEnding[] = [];
  for (const ending of input.endings ?? []) {
    const sourceId = byKey.get(normalizeEntityName(ending.subject))?.id;
    if (sourceId !== undefined) out.push({ sourceId, relation: normalizeRelation(ending.relation), validAt: ending.valid_at, noun: ending.noun });
  }
  return out;
}

const factKey = (sourceId: number, relation: string, targetId: number) => `${sourceId}:${relation}:${targetId}`;

const entityPatch = (node: EntityNode) => ({ id: node.id!, description: node.description, type: node.type, embedding: node.textVector });

const edgeState = (node: EdgeNode) => ({
  id: node.id!,
  weight: node.weight,
  description: node.description,
  validAt: node.validAt,
  invalidAt: node.invalidAt,
  expiredAt: node.expiredAt,
});
