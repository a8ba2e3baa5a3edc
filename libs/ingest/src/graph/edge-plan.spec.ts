import type { EdgeRow } from '@loci/db';
import { planEdges, ResolvedFact } from './edge-plan';

const ALICE = 1;
const ACME = 2;
const GLOBEX = 3;
const reference = new Date('2024-06-01T00:00:00Z');
const now = new Date('2024-07-01T00:00:00Z');

const fact = (relation: string, targetId: number, validAt: string | null = null, description = ''): ResolvedFact => ({
  relation: { source: 'Alice', target: 'x', relation, description, keywords: [], valid_at: validAt, invalid_at: null, vector: [1] },
  sourceId: ALICE,
  targetId,
});

const stored = (id: number, relation: string, targetId: number, validAt: string): EdgeRow =>
  ({
    id,
    sourceId: ALICE,
    targetId,
    relation,
    description: 'before',
    weight: 1,
    validAt: new Date(validAt),
    invalidAt: null,
    expiredAt: null,
  }) as EdgeRow;

describe('planEdges', () => {
  it('merges a repeated fact: weight + 1, descriptions joined, the earlier valid_at', () => {
    const plan = planEdges([stored(10, 'works_at', ACME, '2023-01-01')], [fact('works_at', ACME, '2020-01-01', 'again')], reference, now);
    expect(plan.created).toEqual([]);
    expect(plan.changed).toEqual([
      expect.objectContaining({ id: 10, weight: 2, description: 'before; again', validAt: new Date('2020-01-01') }),
    ]);
    expect(plan.changes.map((c) => [c.kind, c.node.id])).toEqual([['updated', 10]]);
  });

  it('lets a later fact of the same text supersede one it created', () => {
    const plan = planEdges([], [fact('works_at', ACME, '2023-01-01'), fact('joined', GLOBEX, '2024-03-01')], reference, now);
    expect(plan.created.map((e) => [e.relation, e.validAt, e.invalidAt, e.expiredAt])).toEqual([
      ['works_at', new Date('2023-01-01'), new Date('2024-03-01'), now],
      ['joined', new Date('2024-03-01'), null, null],
    ]);
    expect(plan.changed).toEqual([]);
    expect(plan.changes.map((c) => [c.kind, c.node.relation])).toEqual([
      ['created', 'works_at'],
      ['created', 'joined'],
      ['superseded', 'works_at'],
    ]);
  });

  it('stores a fact older than the live one of its slot as already ended, leaving the live one', () => {
    const plan = planEdges([stored(10, 'joined', GLOBEX, '2024-03-01')], [fact('works_at', ACME, '2023-01-01')], reference, now);
    expect(plan.created).toEqual([expect.objectContaining({ relation: 'works_at', invalidAt: new Date('2024-03-01'), expiredAt: null })]);
    expect(plan.changed).toEqual([]);
  });

  it('ends the live fact an ending event names, without superseding it', () => {
    const plan = planEdges([stored(10, 'works_at', ACME, '2020-01-01')], [fact('left', ACME, '2022-01-01')], reference, now);
    expect(plan.changed).toEqual([expect.objectContaining({ id: 10, invalidAt: new Date('2022-01-01'), expiredAt: null })]);
    expect(plan.changes.map((c) => [c.kind, c.node.relation])).toEqual([
      ['created', 'left'],
      ['ended', 'works_at'],
    ]);
  });

  it('lets a new holder of a one-holder role supersede the one before, whoever it was', () => {
    const TOM = 4;
    const SPRINGFIELD = 5;
    const tom: EdgeRow = { ...stored(10, 'mayor_of', SPRINGFIELD, '2020-01-01'), sourceId: TOM };
    const ana: ResolvedFact = { ...fact('mayor_of', SPRINGFIELD, '2024-01-01'), sourceId: ALICE };
    const plan = planEdges([tom], [ana], reference, now);
    expect(plan.changed).toEqual([expect.objectContaining({ id: 10, invalidAt: new Date('2024-01-01'), expiredAt: now })]);
    expect(plan.changes.map((c) => [c.kind, c.node.relation])).toEqual([
      ['created', 'mayor_of'],
      ['superseded', 'mayor_of'],
    ]);
    // A role many hold at once (a director) leaves the others alone.
    const director: EdgeRow = { ...stored(11, 'director_of', SPRINGFIELD, '2020-01-01'), sourceId: TOM };
    expect(planEdges([director], [{ ...fact('director_of', SPRINGFIELD, '2024-01-01') }], reference, now).changed).toEqual([]);
  });

  it('gives a fact without a date the reference date', () => {
    const plan = planEdges([], [fact('lives_in', ACME)], reference, now);
    expect(plan.created[0].validAt).toEqual(reference);
  });
});
