import { SQL, sql } from 'drizzle-orm';
import { boundingBox, EARTH_RADIUS_KM, LatLon } from '@loci/geo';
import { bigintArray, entityVisible, Scope } from '../visibility.sql';

/**
 * The SQL of gb query's nearby search (geo on). Distances are great-circle (haversine, the
 * mean earth radius of `@loci/geo`) computed in the statement, after a bounding box that the
 * partial index `entities_graph_location_idx` (tenant_id, graph_id, latitude, longitude, id
 * WHERE latitude IS NOT NULL, migration 0015) scans index-only: one tenant's one graph, one
 * latitude band, the longitudes filtered in the index. No extension is needed, so it runs the same on PostgreSQL and
 * PGlite (docs/decisions/0041-geo.md says why not cube/earthdistance).
 */

const placeColumns = sql.raw(`e.id, e.name, e.normalized_name, e.type, e.description, e.updated_at, e.latitude, e.longitude`);

/** Entities of the graph with coordinates and one of these normalized names (visible or not: a stored question place has no document). */
export function placesByNameSql({ tenantId, graphId }: Scope, normalizedNames: string[]): SQL {
  return sql`SELECT ${placeColumns} FROM entities e
    WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId}
      AND e.normalized_name = ANY(${`{${normalizedNames.map(arrayElement).join(',')}}`}::text[])
      AND e.latitude IS NOT NULL
    ORDER BY e.id`;
}

/** Of these entities, the ones with coordinates. */
export function placesByIdsSql({ tenantId, graphId }: Scope, ids: number[]): SQL {
  return sql`SELECT ${placeColumns} FROM entities e
    WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId} AND e.id = ANY(${bigintArray(ids)}) AND e.latitude IS NOT NULL
    ORDER BY e.id`;
}

/** A text[] literal's element, quoted (names may hold commas, quotes, braces). */
const arrayElement = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export interface NearbyQuery {
  /** Each with the entity it is, which is never its own neighbour. */
  anchors: Array<LatLon & { entityId: number }>;
  radiusKm: number;
  limit: number;
}

/**
 * The visible entities with coordinates within `radiusKm` of an anchor other than themselves,
 * each once with its nearest such anchor (`anchor`: the index in `anchors`), nearest first. A
 * place that is an anchor is still the neighbour of another one ("near Paris": Versailles,
 * which the question also matched).
 */
export function nearbySql(scope: Scope, q: NearbyQuery): SQL {
  const rows = q.anchors.map((a, k) => {
    const box = boundingBox(a, q.radiusKm);
    // A second longitude range only when the box crosses the antimeridian; else an empty one.
    const [w1, e1] = box.lonRanges[0];
    const [w2, e2] = box.lonRanges[1] ?? [1, 0];
    return sql`(${k}::int, ${a.entityId}::bigint, ${a.latitude}::float8, ${a.longitude}::float8, ${box.minLat}::float8, ${box.maxLat}::float8,
      ${w1}::float8, ${e1}::float8, ${w2}::float8, ${e2}::float8)`;
  });
  return sql`WITH anchors(k, entity_id, lat, lon, min_lat, max_lat, w1, e1, w2, e2) AS (VALUES ${sql.join(rows, sql`, `)}),
    hits AS (
      SELECT c.id, a.k, a.entity_id AS anchor_id,
        2 * ${EARTH_RADIUS_KM}::float8 * asin(least(1, sqrt(
          power(sin(radians(c.latitude - a.lat) / 2), 2)
          + cos(radians(a.lat)) * cos(radians(c.latitude)) * power(sin(radians(c.longitude - a.lon) / 2), 2)))) AS distance_km
      FROM anchors a
      CROSS JOIN LATERAL (
        SELECT e.id, e.latitude, e.longitude FROM entities e
        WHERE e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND e.latitude IS NOT NULL
          AND e.latitude BETWEEN a.min_lat AND a.max_lat
          AND (e.longitude BETWEEN a.w1 AND a.e1 OR e.longitude BETWEEN a.w2 AND a.e2)) c),
    nearest AS (
      SELECT DISTINCT ON (h.id) h.id, h.k, h.distance_km FROM hits h
      WHERE h.distance_km <= ${q.radiusKm}::float8 AND h.id <> h.anchor_id
      ORDER BY h.id, h.distance_km, h.k)
    SELECT ${placeColumns}, n.k AS anchor, n.distance_km FROM nearest n
    JOIN entities e ON e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND e.id = n.id
    WHERE ${entityVisible(scope, 'e')}
    ORDER BY n.distance_km, e.id
    LIMIT ${q.limit}`;
}

export interface PlaceToStore {
  name: string;
  normalizedName: string;
  latitude: number;
  longitude: number;
}

/**
 * Coordinates for the graph's entities of these names that have none (a place remember stored
 * before geo was on, or could not resolve); returns the rows it gave them.
 */
export function setPlaceCoordinatesSql({ tenantId, graphId }: Scope, places: PlaceToStore[]): SQL {
  const values = sql.join(
    places.map((p) => sql`(${p.normalizedName}::text, ${p.latitude}::float8, ${p.longitude}::float8)`),
    sql`, `,
  );
  return sql`UPDATE entities e SET latitude = v.lat, longitude = v.lon
    FROM (VALUES ${values}) AS v(normalized_name, lat, lon)
    WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId} AND e.normalized_name = v.normalized_name AND e.latitude IS NULL
    RETURNING ${placeColumns}`;
}

/** New entities for places no entity of the graph is named after yet (type `location`, no document, no vector). */
export function insertPlacesSql({ tenantId, graphId }: Scope, places: PlaceToStore[]): SQL {
  const values = sql.join(
    places.map(
      (p) =>
        sql`(${tenantId}::uuid, ${graphId}::bigint, ${p.name}::text, ${p.normalizedName}::text, 'location', ${p.latitude}::float8, ${p.longitude}::float8)`,
    ),
    sql`, `,
  );
  return sql`INSERT INTO entities AS e (tenant_id, graph_id, name, normalized_name, type, latitude, longitude)
    SELECT v.* FROM (VALUES ${values}) AS v(tenant_id, graph_id, name, normalized_name, type, latitude, longitude)
    WHERE NOT EXISTS (SELECT 1 FROM entities x
      WHERE x.tenant_id = v.tenant_id AND x.graph_id = v.graph_id AND x.normalized_name = v.normalized_name)
    RETURNING ${placeColumns}`;
}
