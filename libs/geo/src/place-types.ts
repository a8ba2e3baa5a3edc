/**
 * Entity types that name a place, as the local extractor (`location`) and models (asked for
 * "locations", they also say city, country, ...) write them: the entities whose name is looked
 * up in the gazetteer.
 */
const PLACE_TYPES: ReadonlySet<string> = new Set([
  'location',
  'place',
  'city',
  'town',
  'village',
  'municipality',
  'capital',
  'metropolis',
  'gpe',
]);

export function isPlaceType(type: string | null | undefined): boolean {
  return !!type && PLACE_TYPES.has(type.toLowerCase());
}
