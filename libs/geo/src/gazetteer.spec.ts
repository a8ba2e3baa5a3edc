import { Gazetteer } from './gazetteer';
import { isPlaceType } from './place-types';

describe('Gazetteer (city-timezones, offline)', () => {
  const g = new Gazetteer();
  it('resolves a city to its most populous namesake, whatever the case and accents', () => {
    expect(g.resolve('Paris')).toMatchObject({ name: 'Paris', countryCode: 'FR' });
    expect(g.resolve('  PARIS ')).toMatchObject({ countryCode: 'FR' });
    expect(g.resolve('Sao Paulo')).toMatchObject({ countryCode: 'BR' });
    expect(g.resolve('London')).toMatchObject({ countryCode: 'GB' });
    const paris = g.resolve('Paris')!;
    expect(paris.latitude).toBeCloseTo(48.87, 1);
    expect(paris.longitude).toBeCloseTo(2.33, 1);
    expect(paris.population).toBeGreaterThan(1_000_000);
  });
  it('narrows by what follows a comma (country, province, state)', () => {
    expect(g.resolve('London, Canada')).toMatchObject({ countryCode: 'CA' });
    expect(g.resolve('Springfield, Missouri')).toMatchObject({ province: 'Missouri' });
    expect(g.resolve('Springfield, MO')).toMatchObject({ province: 'Missouri' });
    expect(g.resolve('Paris, Atlantis')).toBeUndefined();
  });
  it('knows nothing of names that are not its cities', () => {
    expect(g.resolve('Acme Corporation')).toBeUndefined();
    expect(g.resolve('')).toBeUndefined();
    expect(g.resolve(',')).toBeUndefined();
  });
});

describe('isPlaceType', () => {
  it('takes the types extractors give places', () => {
    expect(['location', 'City', 'place'].every(isPlaceType)).toBe(true);
    expect([null, undefined, 'person', 'organization', 'concept'].some(isPlaceType)).toBe(false);
  });
});
