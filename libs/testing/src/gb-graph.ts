import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import {
  chunks,
  Database,
  DATABASE,
  DocumentsRepository,
  edgeDocuments,
  edges,
  entities,
  entityDocuments,
  GraphsRepository,
  EMBEDDING_DIMENSIONS,
} from '@loci/db';

/**
 * A gb dataset graph written straight into the store, for retrieval tests that need exact
 * scores, timestamps and vectors (which ingestion would choose itself). Every row is supported
 * by one `processed` text, so retrieval sees it.
 */
export interface GbGraphFixture {
  tenantId: string;
  graphId: number;
  /** The processed text (gb artifact) every row is supported by. */
  documentId: number;
  scope: { tenantId: string; graphId: number };
}

export interface GbEntityFixture {
  name: string;
  /** Defaults to the name as ingestion normalizes it (case, accents, punctuation, spacing). */
  normalizedName?: string;
  type?: string | null;
  description?: string | null;
  updatedAt?: Date;
  embedding?: number[] | null;
}

export interface GbEdgeFixture {
  sourceId: number;
  targetId: number;
  relation?: string;
  description?: string | null;
  validAt?: Date | null;
  invalidAt?: Date | null;
  createdAt?: Date;
  expiredAt?: Date | null;
  embedding?: number[] | null;
}

export interface GbChunkFixture {
  index: number;
  text: string;
  summary?: string | null;
  embedding?: number[] | null;
  summaryEmbedding?: number[] | null;
}

const dbOf = (app: INestApplication) => app.get<Database>(DATABASE).db;

// The same key as ingestion's normalizeEntityName, restated so fixtures do not depend on it.
const normalized = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export async function createGbGraph(app: INestApplication, tenantId: string, userId: string, dataset = 'main'): Promise<GbGraphFixture> {
  const graph = await app.get(GraphsRepository).gbGraph(tenantId, userId, dataset);
  const documents = app.get(DocumentsRepository);
  const { document } = await documents.createOrGet({
    tenantId,
    graphId: graph.id,
    kind: 'gb_text',
    name: 'fixture',
    mimeType: 'text/plain',
    contentHash: randomBytes(16).toString('hex'),
    text: 'fixture text',
    documentDate: null,
    sessionId: null,
  });
  await documents.setStatus(tenantId, document.id, 'processed', { processedAt: new Date() });
  return { tenantId, graphId: graph.id, documentId: document.id, scope: { tenantId, graphId: graph.id } };
}

export async function insertGbEntities(app: INestApplication, g: GbGraphFixture, list: GbEntityFixture[]) {
  if (list.length === 0) return [];
  const db = dbOf(app);
  const rows = await db
    .insert(entities)
    .values(
      list.map((e) => ({
        tenantId: g.tenantId,
        graphId: g.graphId,
        name: e.name,
        normalizedName: e.normalizedName ?? normalized(e.name),
        type: e.type ?? null,
        description: e.description ?? null,
        embedding: e.embedding ?? null,
        ...(e.updatedAt ? { createdAt: e.updatedAt, updatedAt: e.updatedAt } : {}),
      })),
    )
    .returning();
  await db.insert(entityDocuments).values(rows.map((row) => ({ tenantId: g.tenantId, entityId: row.id, documentId: g.documentId })));
  return rows;
}

export async function insertGbEdges(app: INestApplication, g: GbGraphFixture, list: GbEdgeFixture[]) {
  if (list.length === 0) return [];
  const db = dbOf(app);
  const rows = await db
    .insert(edges)
    .values(
      list.map((x) => ({
        tenantId: g.tenantId,
        graphId: g.graphId,
        sourceId: x.sourceId,
        targetId: x.targetId,
        relation: x.relation ?? 'related_to',
        description: x.description ?? null,
        embedding: x.embedding ?? null,
        validAt: x.validAt ?? null,
        invalidAt: x.invalidAt ?? null,
        expiredAt: x.expiredAt ?? null,
        artifactId: g.documentId,
        ...(x.createdAt ? { createdAt: x.createdAt, updatedAt: x.createdAt } : {}),
      })),
    )
    .returning();
  await db.insert(edgeDocuments).values(rows.map((row) => ({ tenantId: g.tenantId, edgeId: row.id, documentId: g.documentId })));
  return rows;
}

export async function insertGbChunks(app: INestApplication, g: GbGraphFixture, list: GbChunkFixture[]) {
  if (list.length === 0) return [];
  return dbOf(app)
    .insert(chunks)
    .values(
      list.map((c) => ({
        tenantId: g.tenantId,
        graphId: g.graphId,
        documentId: g.documentId,
        index: c.index,
        text: c.text,
        tokenCount: Math.ceil(c.text.length / 4),
        summary: c.summary ?? null,
        embedding: c.embedding ?? null,
        summaryEmbedding: c.summaryEmbedding ?? null,
      })),
    )
    .returning();
}

/**
 * A unit vector whose cosine similarity with the unit vector `q` is exactly `similarity`
 * (`q` itself at 1): `similarity·q + sqrt(1 − similarity²)·u`, `u` a unit vector orthogonal
 * to `q`. `axis` picks which orthogonal direction, so two such vectors can differ.
 */
export function vectorAtSimilarity(q: number[], similarity: number, axis = 0): number[] {
  const norm = Math.hypot(...q);
  const unit = q.map((x) => x / norm);
  // Gram–Schmidt on a basis vector, skipping axes (nearly) parallel to q.
  for (let i = axis; i < axis + EMBEDDING_DIMENSIONS; i++) {
    const k = i % EMBEDDING_DIMENSIONS;
    const u = unit.map((x) => -x * unit[k]);
    u[k] += 1;
    const length = Math.hypot(...u);
    if (length < 0.5) continue;
    const rest = Math.sqrt(Math.max(0, 1 - similarity * similarity));
    return unit.map((x, j) => similarity * x + rest * (u[j] / length));
  }
  throw new Error('no orthogonal direction found');
}
