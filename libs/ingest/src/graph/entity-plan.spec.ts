import { cosineSimilarity, planEntities } from './entity-plan';
import type { EntityToWrite } from './write-types';

const axis = (i: number, dims = 8) => Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0));
const entity = (name: string, nameVector: number[], description = ''): EntityToWrite => ({
  name,
  type: 'organization',
  description,
  nameVector,
  textVector: nameVector,
});

describe('planEntities', () => {
  it('resolves the same normalised name to the stored entity and merges its description', () => {
    const plan = planEntities({
      named: [{ key: 'acme', entity: entity('ACME', axis(0), 'Makes anvils.') }],
      exact: new Map([['acme', 5]]),
      nearest: new Map(),
      rows: new Map([[5, { id: 5, description: 'A company.', type: 'organization', embeddingModel: 'm' }]]),
      threshold: 0.75,
    });
    expect(plan.created).toEqual([]);
    expect(plan.byKey.get('acme')).toMatchObject({ id: 5, description: 'A company.; Makes anvils.', changed: true });
    expect(plan.changes.map((c) => [c.kind, c.node.id])).toEqual([['updated', 5]]);
  });

  it('matches a name to one the same text created earlier when their name vectors are close', () => {
    const plan = planEntities({
      named: [
        { key: 'acme', entity: entity('Acme', axis(0)) },
        { key: 'acme corp', entity: entity('ACME Corp.', axis(0), 'Ships worldwide.') },
        { key: 'globex', entity: entity('Globex', axis(1)) },
      ],
      exact: new Map(),
      nearest: new Map(),
      rows: new Map(),
      threshold: 0.75,
    });
    expect(plan.created.map((n) => n.insert!.name)).toEqual(['Acme', 'Globex']);
    const acme = plan.byKey.get('acme')!;
    expect(plan.byKey.get('acme corp')).toBe(acme);
    expect(acme).toMatchObject({ description: 'Ships worldwide.', changed: false }); // new: inserted as merged
    expect(plan.changes.map((c) => [c.kind, c.node.insert?.name])).toEqual([
      ['created', 'Acme'],
      ['updated', 'Acme'],
      ['created', 'Globex'],
    ]);
  });

  it('takes the closest of the stored entity and the ones the text created, above the threshold only', () => {
    const between = [0.8, 0.6, 0, 0, 0, 0, 0, 0];
    const plan = planEntities({
      named: [
        { key: 'a', entity: entity('A', axis(0)) },
        { key: 'b', entity: entity('B', between) },
        { key: 'c', entity: entity('C', axis(2)) },
      ],
      exact: new Map(),
      // The stored entity 9 is nearest to B at 0.76; A (created just before) is nearer at 0.8.
      nearest: new Map([
        ['b', { id: 9, similarity: 0.76 }],
        ['c', { id: 9, similarity: 0.5 }],
      ]),
      rows: new Map([[9, { id: 9, description: null, type: null, embeddingModel: null }]]),
      threshold: 0.75,
    });
    expect(plan.byKey.get('b')).toBe(plan.byKey.get('a'));
    expect(plan.created.map((n) => n.insert!.name)).toEqual(['A', 'C']);
  });

  it('creates the entity when the stored one it matched was deleted meanwhile', () => {
    const plan = planEntities({
      named: [{ key: 'acme', entity: entity('Acme', axis(0)) }],
      exact: new Map([['acme', 5]]),
      nearest: new Map(),
      rows: new Map(),
      threshold: 0.75,
    });
    expect(plan.changes.map((c) => c.kind)).toEqual(['created']);
  });

  describe('the stored entity\'s vector', () => {
    const text = axis(3);
    const named = (description: string) => [{ key: 'acme', entity: { ...entity('Acme', axis(0), description), textVector: text } }];
    const plan = (stored: string | null, description: string, embeddingModel: string | null = 'm', exact = true) =>
      planEntities({
        named: named(description),
        exact: exact ? new Map([['acme', 5]]) : new Map(),
        nearest: exact ? new Map() : new Map([['acme', { id: 5, similarity: 0.9 }]]),
        rows: new Map([[5, { id: 5, description: stored, type: 'organization', embeddingModel }]]),
        threshold: 0.75,
        embeddingModel: 'm',
      }).byKey.get('acme')!;

    it('is replaced by the text\'s when the entity gets its first description', () => {
      expect(plan(null, 'Makes anvils.')).toMatchObject({ changed: true, description: 'Makes anvils.', textVector: text });
      expect(plan('  ', 'Makes anvils.').textVector).toBe(text);
    });

    it('stays when a description is appended, or nothing changes', () => {
      expect(plan('A company.', 'Makes anvils.')).toMatchObject({ changed: true, description: 'A company.; Makes anvils.' });
      expect(plan('A company.', 'Makes anvils.').textVector).toBeUndefined();
      expect(plan('A company.', 'a company.')).toMatchObject({ changed: false });
      expect(plan('A company.', 'a company.').textVector).toBeUndefined();
    });

    it('stays when another embedder made it, or the name only resolved by vector to it', () => {
      expect(plan(null, 'Makes anvils.', 'other').textVector).toBeUndefined();
      expect(plan(null, 'Makes anvils.', 'm', false)).toMatchObject({ changed: true, description: 'Makes anvils.' });
      expect(plan(null, 'Makes anvils.', 'm', false).textVector).toBeUndefined();
    });
  });
});

describe('cosineSimilarity', () => {
  it('is the cosine of the angle, and NaN against the zero vector (as in pgvector)', () => {
    expect(cosineSimilarity([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 6);
    expect(cosineSimilarity([0, 0], [1, 1])).toBeNaN();
  });
});
