import { ownIndexesOf } from './bulk-load.repository';
import { nearestBy } from '../vector-width';
import { PgDialect } from 'drizzle-orm/pg-core';

describe('a graph in its own vector tier', () => {
  it('has one own index per searched vector and width, named after the graph, within PostgreSQL’s 63-character names', () => {
    const names = ownIndexesOf(42).map((index) => `${index.table}.${index.column} ${index.name}`);
    expect(names).toEqual([
      'chunks.own_embedding_256 graph_42_chunks_own_embedding_256',
      'chunks.own_embedding graph_42_chunks_own_embedding',
      'chunks.own_summary_embedding_256 graph_42_chunks_own_summary_embedding_256',
      'chunks.own_summary_embedding graph_42_chunks_own_summary_embedding',
      'entities.own_embedding_256 graph_42_entities_own_embedding_256',
      'entities.own_embedding graph_42_entities_own_embedding',
      'edges.own_embedding_256 graph_42_edges_own_embedding_256',
      'edges.own_embedding graph_42_edges_own_embedding',
    ]);
    for (const index of ownIndexesOf(Number.MAX_SAFE_INTEGER)) expect(index.name.length).toBeLessThanOrEqual(63);
  });

  it('refuses what is not a graph id, since the id is written into index statements', () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(() => ownIndexesOf(id)).toThrow(RangeError);
  });

  it('is searched in its own columns, at the vector’s width; names stay in the shared columns', () => {
    const dialect = new PgDialect();
    const columnOf = (...args: Parameters<typeof nearestBy>) => dialect.sqlToQuery(nearestBy(...args).column).sql;
    expect(columnOf('c', 'embedding', new Array(256).fill(0.1), 'own')).toBe('c.own_embedding_256');
    expect(columnOf('c', 'summary_embedding', new Array(1024).fill(0.1), 'own')).toBe('c.own_summary_embedding');
    expect(columnOf('c', 'embedding', new Array(1024).fill(0.1), 'shared')).toBe('c.embedding');
    expect(columnOf('c', 'embedding', new Array(256).fill(0.1))).toBe('c.embedding_256');
    expect(columnOf('e', 'name_embedding', new Array(256).fill(0.1), 'own')).toBe('e.name_embedding_256');
  });
});
