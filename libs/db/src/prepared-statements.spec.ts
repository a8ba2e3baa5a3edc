import { PreparedStatementNames } from './prepared-statements';

const postgres = { kind: 'postgres' as const, pooled: false };

describe('PreparedStatementNames', () => {
  it('gives one text one name, labelled, and another text another', () => {
    const names = new PreparedStatementNames(8);
    const first = names.nameFor(postgres, 'walk', 'SELECT 1');
    expect(first).toMatch(/^loci_walk_\d+$/);
    expect(names.nameFor(postgres, 'walk', 'SELECT 1')).toBe(first);
    const second = names.nameFor(postgres, 'walk', 'SELECT 2');
    expect(second).toMatch(/^loci_walk_\d+$/);
    expect(second).not.toBe(first);
  });

  it('names nothing on PGlite or behind a transaction pooler', () => {
    const names = new PreparedStatementNames(8);
    expect(names.nameFor({ kind: 'pglite' }, 'walk', 'SELECT 1')).toBeUndefined();
    expect(names.nameFor({ kind: 'postgres', pooled: true }, 'walk', 'SELECT 1')).toBeUndefined();
    expect(names.size).toBe(0);
  });

  it('names at most its bound of texts, keeps those, and runs the rest unnamed', () => {
    const names = new PreparedStatementNames(2);
    const a = names.nameFor(postgres, 'a', 'SELECT 1');
    const b = names.nameFor(postgres, 'b', 'SELECT 2');
    expect(names.nameFor(postgres, 'c', 'SELECT 3')).toBeUndefined();
    expect(names.size).toBe(2);
    expect(names.nameFor(postgres, 'a', 'SELECT 1')).toBe(a);
    expect(names.nameFor(postgres, 'b', 'SELECT 2')).toBe(b);
  });
});
