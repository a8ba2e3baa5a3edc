import { documentNameKey, normalizeEntityName } from './entity-names';

describe('entity and document names', () => {
  it('normalises case, accents, punctuation and spacing', () => {
    expect(normalizeEntityName('  ACME  Corp. ')).toBe('acme corp');
    expect(normalizeEntityName('Société Générale')).toBe('societe generale');
  });

  it('keys a document by what its name is about: no extension, no trailing qualifier', () => {
    expect(documentNameKey('acme-history.md')).toBe('acme history');
    expect(documentNameKey('Lilu (mythology)')).toBe('lilu');
    expect(documentNameKey('Maximum Overdrive')).toBe('maximum overdrive');
    expect(documentNameKey('(draft)')).toBeUndefined();
  });
});
