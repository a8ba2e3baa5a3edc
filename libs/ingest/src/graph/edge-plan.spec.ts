import type { EdgeRow } from '@loci/db';
import { liveEdgesWanted, planEdges, ResolvedEnding, ResolvedFact } from './edge-plan';

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

  describe('an ending that names no object ("Alice retired")', () => {
    const ending = (relation: string, validAt: string | null = null, noun?: string): ResolvedEnding => ({ sourceId: ALICE, relation, validAt, ...(noun ? { noun } : {}) });
    const withDescription = (row: EdgeRow, description: string): EdgeRow => ({ ...row, description });

    it('ends the subject\'s live facts of the slots its verb ends, whatever their target, and no other', () => {
      const live = [stored(10, 'works_at', ACME, '2020-01-01'), stored(11, 'cto_of', ACME, '2021-01-01'), stored(12, 'lives_in', GLOBEX, '2020-01-01')];
      const plan = planEdges(live, [], reference, now, [ending('retired', '2024-03-01T00:00:00.000Z')]);
      expect(plan.changes.map((c) => [c.kind, c.node.id])).toEqual([
        ['ended', 10],
        ['ended', 11],
      ]);
      expect(plan.changed.map((e) => [e.id, e.invalidAt, e.expiredAt])).toEqual([
        [10, new Date('2024-03-01'), null],
        [11, new Date('2024-03-01'), null],
      ]);
    });

    it('leaves a fact that began after it, and one the same text states without an earlier date', () => {
      const plan = planEdges([stored(10, 'works_at', ACME, '2024-05-01')], [fact('joined', GLOBEX)], reference, now, [ending('quit', '2024-03-01T00:00:00.000Z')]);
      expect(plan.changes.map((c) => c.kind)).toEqual(['created', 'superseded']);
      const same = planEdges([], [fact('joined', GLOBEX)], reference, now, [ending('quit')]);
      expect(same.created[0]).toMatchObject({ relation: 'joined', invalidAt: null });
    });

    it('ends a thing owned or a club only when it is the one the subject has, named by the same noun', () => {
      const pub = withDescription(stored(10, 'owns', ACME, '2020-01-01'), 'Alice owns the Red Lion pub.');
      expect(planEdges([pub], [], reference, now, [ending('sold', null, 'pub')]).changes.map((c) => [c.kind, c.node.id])).toEqual([['ended', 10]]);
      expect(planEdges([pub], [], reference, now, [ending('sold', null, 'car')]).changes).toEqual([]);
      expect(planEdges([pub, stored(11, 'owns', GLOBEX, '2020-01-01')], [], reference, now, [ending('sold')]).changes).toEqual([]);
    });

    it('ends the role its noun names ("is no longer the treasurer"), not the others', () => {
      const live = [stored(10, 'treasurer_of', ACME, '2020-01-01'), stored(11, 'secretary_of', GLOBEX, '2020-01-01')];
      const plan = planEdges(live, [], reference, now, [ending('stepped_down', null, 'treasurer')]);
      expect(plan.changes.map((c) => [c.kind, c.node.id])).toEqual([['ended', 10]]);
      expect(plan.changed[0].invalidAt).toEqual(reference);
    });
  });

  describe('a symmetric fact stored the other way round ("Joe dates Alice")', () => {
    const JOE = 4;
    const joeDatesAlice = (id: number, relation = 'dates') => ({ ...stored(id, relation, ALICE, '2020-01-01'), sourceId: JOE });

    it("is superseded by the subject's next partner", () => {
      const plan = planEdges([joeDatesAlice(10)], [fact('dates', GLOBEX, '2024-05-01')], reference, now);
      expect(plan.changes.map((c) => [c.kind, c.node.id ?? c.node.relation])).toEqual([
        ['created', 'dates'],
        ['superseded', 10],
      ]);
    });

    it('stays beside its mirror ("Alice dates Joe"), which neither supersedes nor merges into it', () => {
      const plan = planEdges([joeDatesAlice(10)], [fact('dates', JOE, '2021-01-01')], reference, now);
      expect(plan.changes.map((c) => [c.kind, c.node.id ?? c.node.relation])).toEqual([['created', 'dates']]);
      expect(plan.changed).toEqual([]);
    });

    it('is ended by an open ending of the subject ("Alice is single again")', () => {
      const ending: ResolvedEnding = { sourceId: ALICE, relation: 'broke_up', validAt: '2024-05-01' };
      const plan = planEdges([joeDatesAlice(10)], [], reference, now, [ending]);
      expect(plan.changes.map((c) => [c.kind, c.node.id])).toEqual([['ended', 10]]);
    });

    it('is not read the other way round when the relation is one-sided ("Joe works at Alice")', () => {
      const plan = planEdges([joeDatesAlice(10, 'works_at')], [fact('works_at', GLOBEX, '2024-05-01')], reference, now);
      expect(plan.changes.map((c) => [c.kind, c.node.relation])).toEqual([['created', 'works_at']]);
    });

    it("is locked with the subject's own facts", () => {
      const { wanted, atTargets } = liveEdgesWanted([fact('married_to', GLOBEX, '2024-05-01')], [], new Set([ALICE, GLOBEX]));
      expect(wanted).toEqual([{ sourceId: ALICE, relations: expect.arrayContaining(['married_to', 'dates']) }]);
      expect(atTargets).toEqual([{ targetId: ALICE, relations: expect.arrayContaining(['married_to', 'dates']) }]);
      expect(atTargets[0].relations).not.toContain('works_at');
    });
  });

  it('ends dating someone else when the subject marries', () => {
    const plan = planEdges([stored(10, 'dates', ACME, '2020-01-01')], [fact('married_to', GLOBEX, '2024-05-01')], reference, now);
    expect(plan.changes.map((c) => [c.kind, c.node.relation])).toEqual([
      ['created', 'married_to'],
      ['superseded', 'dates'],
    ]);
  });
});
