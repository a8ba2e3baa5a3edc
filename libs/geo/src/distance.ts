/** Mean earth radius (IUGG), the one every distance of Loci is computed with, in SQL and here. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Half the earth's circumference: the farthest two points can be (the contract's bound of geo_radius_km). */
export const MAX_GEO_RADIUS_KM = 20015;

export interface LatLon {
  latitude: number;
  longitude: number;
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance (haversine) in km. */
export function haversineKm(a: LatLon, b: LatLon): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The latitude band and longitude ranges that hold every point within `radiusKm` of `center`:
 * what an index on (latitude, longitude) can scan before the exact distance is computed. A box
 * that crosses the antimeridian is two longitude ranges; one that reaches a pole spans every
 * longitude. Never smaller than the circle, so filtering by it loses nothing.
 */
export function boundingBox(center: LatLon, radiusKm: number): { minLat: number; maxLat: number; lonRanges: Array<[number, number]> } {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const minLat = center.latitude - dLat;
  const maxLat = center.latitude + dLat;
  if (minLat <= -90 || maxLat >= 90) return { minLat: Math.max(minLat, -90), maxLat: Math.min(maxLat, 90), lonRanges: [[-180, 180]] };
  // The widest a circle gets in longitude is at the latitude whose small circle it touches.
  const ratio = Math.sin(radiusKm / EARTH_RADIUS_KM) / Math.cos(rad(center.latitude));
  if (ratio >= 1) return { minLat, maxLat, lonRanges: [[-180, 180]] };
  const dLon = Math.asin(ratio) * (180 / Math.PI);
  const west = center.longitude - dLon;
  const east = center.longitude + dLon;
  if (west < -180) return { minLat, maxLat, lonRanges: [[west + 360, 180], [-180, east]] };
  if (east > 180) return { minLat, maxLat, lonRanges: [[west, 180], [-180, east - 360]] };
  return { minLat, maxLat, lonRanges: [[west, east]] };
}
