import { fullerNames, shorterNameMatches } from './shorter-names';
import type { EntityToWrite } from './write-types';

const named = (name: string, type: string) => ({
  key: name.toLowerCase(),
  entity: { name, type, description: '', nameVector: [], textVector: [] } as EntityToWrite,
});

describe('a shorter name of the same body', () => {
  it('looks up the fuller names of an organization or an untyped name, never a person or a place', () => {
    const fuller = fullerNames([named('McGill', 'organization'), named('Labour', 'concept'), named('Lincoln', 'person'), named('Leeds', 'location')]);
    expect(fuller.get('mcgill university')).toBe('mcgill');
    expect(fuller.get('labour party')).toBe('labour');
    expect([...fuller.values()].filter((short) => short === 'lincoln' || short === 'leeds')).toEqual([]);
  });

  it('looks up a party by its members in the plural ("the Greens", "the Liberal Democrats")', () => {
    const fuller = fullerNames([named('Greens', 'organization'), named('Liberal Democrats', 'organization'), named('Swiss', 'concept')]);
    expect(fuller.get('green party')).toBe('greens');
    expect(fuller.get('liberal democrat party')).toBe('liberal democrats');
    expect(fuller.has('swis party')).toBe(false);
  });

  it('does not look up a name that already ends in the noun of a body', () => {
    expect(fullerNames([named('Leeds University', 'organization')]).size).toBe(0);
  });

  it('resolves a name to the one entity of a fuller name, and to none when it has its own or several', () => {
    const fuller = fullerNames([named('McGill', 'organization'), named('Labour', 'concept'), named('Acme', 'organization')]);
    const found = new Map([
      ['mcgill university', 7],
      ['labour party', 3],
      ['labour club', 4],
      ['acme group', 9],
    ]);
    const exact = new Map([['acme', 1]]);
    expect(shorterNameMatches(fuller, found, exact)).toEqual(new Map([['mcgill', 7]]));
  });
});
