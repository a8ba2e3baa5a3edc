import { normalizeEntityName } from '@loci/common';

/** A place of the gazetteer: a city with its country, coordinates and population. */
export interface GazetteerPlace {
  name: string;
  country: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  province: string;
  latitude: number;
  longitude: number;
  population: number;
}

interface Row {
  city: string;
  city_ascii: string;
  lat: number;
  lng: number;
  pop: number;
  country: string;
  iso2: string;
  iso3: string;
  province: string;
  state_ansi?: string;
}

interface Entry {
  place: GazetteerPlace;
  /** Normalized names of what contains it (country, its codes, province, US state code). */
  within: Set<string>;
}

/**
 * Place names resolved offline against the city list the `city-timezones` package ships
 * (7,300 cities with their country, province, coordinates and population; 1.9 MB of JSON, MIT):
 * nothing is downloaded at run time. The list is read on first use (~60 ms, ~6 MB of heap), so
 * a server with geo off never loads it.
 *
 * A name matches a city's name written with or without accents, normalized like entity names
 * ("SAO PAULO" = "São Paulo"). "Springfield, Missouri" or "Paris, France": what follows the
 * comma narrows to the cities within that country, province or state. Of several cities of one
 * name, the most populous is taken ("Paris" is the French one), which is the guess a reader
 * makes too; docs/decisions/0041-geo.md lists what this does not cover.
 */
export class Gazetteer {
  private byName?: Map<string, Entry[]>;

  /** The place a name refers to, or undefined when the gazetteer does not know it. */
  resolve(name: string): GazetteerPlace | undefined {
    const [head, ...qualifiers] = name.split(',');
    const key = normalizeEntityName(head ?? '');
    if (!key) return undefined;
    let candidates = this.index().get(key) ?? [];
    for (const qualifier of qualifiers.map(normalizeEntityName).filter(Boolean)) {
      candidates = candidates.filter((entry) => entry.within.has(qualifier));
    }
    return candidates[0]?.place;
  }

  private index(): Map<string, Entry[]> {
    if (this.byName) return this.byName;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const rows = (require('city-timezones') as { cityMapping: Row[] }).cityMapping;
    const byName = new Map<string, Entry[]>();
    for (const row of rows) {
      if (!row.city || !Number.isFinite(row.lat) || !Number.isFinite(row.lng)) continue;
      const entry: Entry = {
        place: {
          name: String(row.city),
          country: String(row.country ?? ''),
          countryCode: String(row.iso2 ?? ''),
          province: String(row.province ?? ''),
          latitude: row.lat,
          longitude: row.lng,
          population: Math.max(0, Math.round(row.pop)),
        },
        // The list has a few numbers and nulls among its strings (iso codes, provinces).
        within: new Set([row.country, row.iso2, row.iso3, row.province, row.state_ansi].map((v) => normalizeEntityName(String(v ?? ''))).filter(Boolean)),
      };
      for (const key of new Set([normalizeEntityName(String(row.city ?? '')), normalizeEntityName(String(row.city_ascii ?? ''))])) {
        if (!key) continue;
        const list = byName.get(key) ?? [];
        list.push(entry);
        byName.set(key, list);
      }
    }
    for (const list of byName.values()) list.sort((a, b) => b.place.population - a.place.population);
    this.byName = byName;
    return byName;
  }
}

let shared: Gazetteer | undefined;

/** The process's gazetteer (its index is built once, on first use). */
export function gazetteer(): Gazetteer {
  shared ??= new Gazetteer();
  return shared;
}
