import { extractLocally } from './extractor';

const relationsOf = (text: string) => extractLocally(text, { referenceDate: new Date('2025-06-15T00:00:00Z') }).relations.map((r) => `${r.source} ${r.relation} ${r.target}`);

describe('"there" after a verb of settling', () => {
  it('is the place named last before it, in its sentence or the one before', () => {
    expect(relationsOf('Sana bought a house in York and moved there in May.')).toContain('Sana moved_to York');
    expect(relationsOf('Sana loves York. She moved there in 2020.')).toContain('Sana moved_to York');
    expect(relationsOf('Ravi visited Leeds, and later he settled there.')).toContain('Ravi settled_in Leeds');
    expect(relationsOf('Ola went to Oslo and lived there for a year.')).toContain('Ola lives_in Oslo');
  });

  it('is nothing after a verb of going, with no place before it, or with the place further back', () => {
    expect(relationsOf('Sana visited York and went there again.').filter((r) => r.includes('went'))).toEqual([]);
    expect(relationsOf('Sana moved there in May.')).toEqual([]);
    expect(relationsOf('Sana was born in York. She loved the city. Later she moved there.').filter((r) => r.includes('moved'))).toEqual([]);
  });

  it('describes the fact with the place it stands for', () => {
    const extraction = extractLocally('Sana bought a house in York and moved there in May.', { referenceDate: new Date('2025-06-15T00:00:00Z') });
    expect(extraction.relations.find((r) => r.relation === 'moved_to')?.description).toMatch(/there \(York\)/);
  });
});
