import type { LatLon } from './distance';
import { gazetteer } from './gazetteer';
import { isPlaceType } from './place-types';

/**
 * The coordinates an entity gets when geo is on: the gazetteer's, when its type names a place
 * and the gazetteer knows its name; undefined otherwise. Ingestion and the geo backfill both ask
 * this, so an entity remembered before geo was on ends where it would have had geo been on.
 */
export function placeCoordinates(name: string, type: string | null | undefined): LatLon | undefined {
  if (!isPlaceType(type)) return undefined;
  const place = gazetteer().resolve(name);
  return place && { latitude: place.latitude, longitude: place.longitude };
}
