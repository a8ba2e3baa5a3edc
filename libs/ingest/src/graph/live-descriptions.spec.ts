import type { EdgeNode } from './edge-plan';
import type { EntityNode } from './entity-plan';
import { dropStatementsOfStaleFacts } from './live-descriptions';

const entity = (id: number, description: string | null): EntityNode => ({ id, description, type: 'person', changed: false });
const edge = (sourceId: number, targetId: number, description: string | null): EdgeNode => ({
  id: 9,
  sourceId,
  targetId,
  relation: 'works_at',
  description,
  weight: 1,
  validAt: null,
  invalidAt: null,
  expiredAt: new Date(),
  changed: true,
});

describe('dropStatementsOfStaleFacts', () => {
  it("drops the parts of both named endpoints' descriptions that state the stale fact", () => {
    const alice = entity(1, 'Alice works at Acme since 2023.; In March 2024, Alice joined Globex.');
    const acme = entity(2, 'Alice works at Acme since 2023.');
    const changed = dropStatementsOfStaleFacts([alice, acme], [edge(1, 2, 'Alice works at Acme since 2023.')]);
    expect(changed).toEqual([alice, acme]);
    expect(alice.description).toBe('In March 2024, Alice joined Globex.');
    expect(acme.description).toBeNull();
  });

  it('matches each statement of a merged fact, case apart, inside longer parts', () => {
    const bob = entity(1, 'Bob lives in Oslo.; bob works at zircon. He likes it.; Bob is tall.');
    dropStatementsOfStaleFacts([bob], [edge(1, 3, 'Bob works at Zircon.; Bob lives in Oslo.')]);
    expect(bob.description).toBe('Bob is tall.');
  });

  it('leaves entities the fact does not touch, and descriptions that do not state it', () => {
    const carol = entity(4, 'Carol works at Acme.');
    const alice = entity(1, 'Alice is an engineer.');
    expect(dropStatementsOfStaleFacts([carol, alice], [edge(1, 2, 'Alice works at Acme.'), edge(1, 2, null)])).toEqual([]);
    expect(carol.description).toBe('Carol works at Acme.');
  });
});
