import { normalizeEntityName } from '@loci/common';
import { Database, Db, GraphWritesRepository, queryRows } from '@loci/db';
import { Gazetteer } from '@loci/geo';
import { Scope } from '../retrieval.queries';
import { insertPlacesSql, nearbySql, placesByIdsSql, placesByNameSql, PlaceToStore, setPlaceCoordinatesSql } from './gb-geo.queries';
import type { GbContext } from './gb-query.context';
import { GbEdge, GbEntity } from './gb-query.repository';

/** An entity with coordinates. */
export interface GbPlace extends GbEntity {
  latitude: number;
  longitude: number;
}

/** A place searched around: one the question names, or a place entity the question matched. */
export interface GbAnchor {
  name: string;
  /** The entity it is (a question's place is stored as one). */
  entityId: number;
  latitude: number;
  longitude: number;
  source: 'question' | 'entity';
}

/** A geo entity within the radius of an anchor. */
export interface GbNearbyEntity {
  entity: GbPlace;
  distanceKm: number;
  anchor: GbAnchor;
}

export interface GbNearbyResult {
  radiusKm: number;
  anchors: GbAnchor[];
  nearby: GbNearbyEntity[];
  /** Names of the question that the database and the gazetteer did not know. */
  unresolved: string[];
}

type Raw = Record<string, unknown>;

const toPlace = (r: Raw): GbPlace => ({
  id: Number(r.id),
  name: String(r.name),
  type: r.type === null || r.type === undefined ? null : String(r.type),
  description: r.description === null || r.description === undefined ? null : String(r.description),
  updatedAt: r.updated_at instanceof Date ? r.updated_at : new Date(String(r.updated_at)),
  score: 0,
  latitude: Number(r.latitude),
  longitude: Number(r.longitude),
});

/** The key of a place name: its head before a comma ("Lyon, France" → "lyon"), normalized like entity names. */
const placeKey = (name: string) => normalizeEntityName(name.split(',')[0] ?? '');

/**
 * gb query's nearby search (geo on, asked for by geo_nearby / geo_radius_km): the question's
 * places resolved (the graph's entities first, then the gazetteer, whose finds are stored as
 * entities with coordinates so the next question finds them in the database), together with the
 * matched entities that have coordinates as anchors, and the geo entities within the radius of
 * any anchor, each with its distance to the nearest one.
 */
export class GbNearby {
  constructor(
    private readonly database: Database,
    private readonly writes: GraphWritesRepository,
    private readonly gazetteer: Gazetteer,
  ) {}

  async search(scope: Scope, input: { places: string[]; matchedIds: number[]; radiusKm: number; limit: number }): Promise<GbNearbyResult> {
    const db = this.database.db;
    const { anchors: named, unresolved } = await this.questionPlaces(scope, input.places);
    const matched = input.matchedIds.length ? (await queryRows<Raw>(db, placesByIdsSql(scope, input.matchedIds))).map(toPlace) : [];
    const anchors = new Map<number, GbAnchor>();
    for (const place of named) anchors.set(place.id, anchorOf(place, 'question'));
    for (const place of matched) if (!anchors.has(place.id)) anchors.set(place.id, anchorOf(place, 'entity'));
    const list = [...anchors.values()];
    if (list.length === 0) return { radiusKm: input.radiusKm, anchors: [], nearby: [], unresolved };
    const rows = await queryRows<Raw>(
      db,
      nearbySql(scope, { anchors: list, radiusKm: input.radiusKm, limit: input.limit }),
    );
    return {
      radiusKm: input.radiusKm,
      anchors: list,
      nearby: rows.map((r) => ({ entity: toPlace(r), distanceKm: Number(r.distance_km), anchor: list[Number(r.anchor)] })),
      unresolved,
    };
  }

  /** The question's places as entities with coordinates: found in the graph, else resolved and stored. */
  private async questionPlaces(scope: Scope, names: string[]): Promise<{ anchors: GbPlace[]; unresolved: string[] }> {
    const keys = [...new Set(names.map(placeKey).filter(Boolean))];
    if (keys.length === 0) return { anchors: [], unresolved: [] };
    const known = await this.placesByKey(this.database.db, scope, keys);
    const toStore = new Map<string, PlaceToStore>();
    const unresolved: string[] = [];
    for (const name of names) {
      const key = placeKey(name);
      if (!key || known.has(key) || toStore.has(key)) continue;
      const place = this.gazetteer.resolve(name);
      if (!place) unresolved.push(name);
      else toStore.set(key, { name: place.name, normalizedName: key, latitude: place.latitude, longitude: place.longitude });
    }
    if (toStore.size > 0) {
      const stored = await this.database.db.transaction(async (tx) => this.store(tx as unknown as Db, scope, [...toStore.values()]));
      for (const place of stored) known.set(place.key, place.row);
    }
    return { anchors: keys.map((key) => known.get(key)).filter((p): p is GbPlace => p !== undefined), unresolved };
  }

  private async placesByKey(db: Db, scope: Scope, keys: string[]): Promise<Map<string, GbPlace>> {
    const rows = await queryRows<Raw>(db, placesByNameSql(scope, keys));
    const byKey = new Map<string, GbPlace>();
    for (const row of rows) if (!byKey.has(String(row.normalized_name))) byKey.set(String(row.normalized_name), toPlace(row));
    return byKey;
  }

  /**
   * Under remember's name locks (so neither writes a second entity of one name): an entity of
   * the name without coordinates gets them, a missing one is created.
   */
  private async store(tx: Db, scope: Scope, places: PlaceToStore[]): Promise<Array<{ key: string; row: GbPlace }>> {
    await this.writes.lockEntityNames(tx, scope.tenantId, scope.graphId, places.map((p) => p.normalizedName));
    await queryRows<Raw>(tx, setPlaceCoordinatesSql(scope, places));
    await queryRows<Raw>(tx, insertPlacesSql(scope, places));
    const stored = await this.placesByKey(tx, scope, places.map((p) => p.normalizedName));
    return [...stored].map(([key, row]) => ({ key, row }));
  }
}

const anchorOf = (place: GbPlace, source: GbAnchor['source']): GbAnchor => ({
  name: place.name,
  entityId: place.id,
  latitude: place.latitude,
  longitude: place.longitude,
  source,
});

/** Geo entities found per question (the nearest first); their live facts are capped like the seeds'. */
export const NEARBY_LIMIT = 25;

/**
 * The nearby entities, the live facts around them and those facts' other ends join the
 * context (nothing twice); the distances are kept for the prompt's `<nearby>` section.
 * Returns how many entities and facts it added.
 */
export function joinNearby(
  context: GbContext,
  result: GbNearbyResult,
  around: GbEdge[],
  endpoints: GbEntity[],
): { entities: number; edges: number } {
  const before = { entities: context.entities.length, edges: context.edges.length };
  const entities = new Map(context.entities.map((e) => [e.id, e]));
  for (const n of result.nearby) if (!entities.has(n.entity.id)) entities.set(n.entity.id, n.entity);
  for (const e of endpoints) if (!entities.has(e.id)) entities.set(e.id, e);
  const edges = new Map(context.edges.map((x) => [x.id, x]));
  // An edge is given with both of its entities; one whose endpoint is not visible is left out.
  for (const x of around) if (!edges.has(x.id) && entities.has(x.sourceId) && entities.has(x.targetId)) edges.set(x.id, x);
  context.entities = [...entities.values()];
  context.edges = [...edges.values()];
  context.nearby = result.nearby;
  return { entities: context.entities.length - before.entities, edges: context.edges.length - before.edges };
}
