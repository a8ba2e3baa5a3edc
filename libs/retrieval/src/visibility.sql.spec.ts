import { PgDialect } from 'drizzle-orm/pg-core';
import { chunkVisible, entityDescription, entityVisible, liveEdge, recordedBy, Scope } from './visibility.sql';
import { GB_QUERY_SYSTEM, gbQuerySystem, gbQueryUser } from './gb/gb-query.context';
import { markHistory } from './gb/gb-query.service';
import type { GbEdge } from './gb/gb-query.repository';

const dialect = new PgDialect();
const render = (q: Parameters<PgDialect['sqlToQuery']>[0]) => dialect.sqlToQuery(q);
const now: Scope = { tenantId: 't', graphId: 1 };
const asOf = new Date('2024-06-01T00:00:00Z');
const then: Scope = { ...now, asOf };
const knownAt = new Date('2023-01-01T00:00:00Z');
const recorded: Scope = { ...now, knownAt };
const knownThen: Scope = { ...now, asOf, knownAt };

describe('retrieval at an instant (as_of: valid time; known_at: record time)', () => {
  it('renders exactly the old predicates without as_of', () => {
    expect(render(liveEdge(now, 'x'))).toEqual({ sql: 'x.expired_at IS NULL', params: [] });
    expect(render(recordedBy(now, 'c'))).toEqual({ sql: '', params: [] });
    expect(render(entityDescription(now, 'e'))).toEqual({ sql: 'e.description', params: [] });
    expect(render(entityVisible(now, 'e')).sql).toMatch(/OFFSET 0\)$/);
    expect(render(chunkVisible(now, 'c')).sql).toMatch(/OFFSET 0\)$/);
  });

  it('at a valid instant: true then, superseded since or not; every row recorded since is read', () => {
    const live = render(liveEdge(then, 'x'));
    expect(live.sql.replace(/\s+/g, ' ')).toBe('(x.valid_at IS NULL OR x.valid_at <= $1::timestamptz) AND (x.invalid_at IS NULL OR x.invalid_at > $2::timestamptz)');
    expect(new Set(live.params)).toEqual(new Set([asOf.toISOString()]));
    expect(render(entityVisible(then, 'e')).sql).toMatch(/OFFSET 0\)$/);
    expect(render(chunkVisible(then, 'c')).sql).toMatch(/OFFSET 0\)$/);
    expect(render(entityDescription(then, 'e')).sql).toBe('e.description');
  });

  it('at a record instant: recorded by then and not yet superseded then; rows recorded later unseen', () => {
    const live = render(liveEdge(recorded, 'x'));
    expect(live.sql.replace(/\s+/g, ' ')).toBe('x.created_at <= $1::timestamptz AND (x.expired_at IS NULL OR x.expired_at > $2::timestamptz)');
    expect(new Set(live.params)).toEqual(new Set([knownAt.toISOString()]));
    expect(render(entityVisible(recorded, 'e')).sql).toMatch(/OFFSET 0\) AND e\.created_at <= \$\d+::timestamptz$/);
    expect(render(chunkVisible(recorded, 'c')).sql).toMatch(/AND c\.created_at <= \$\d+::timestamptz$/);
    expect(render(entityDescription(recorded, 'e')).sql).toContain('AS description');
  });

  it('at both: what was recorded by known_at as true at as_of, an end recorded later not yet known', () => {
    const live = render(liveEdge(knownThen, 'x'));
    expect(live.sql.replace(/\s+/g, ' ')).toBe(
      'x.created_at <= $1::timestamptz AND (x.expired_at IS NULL OR x.expired_at > $2::timestamptz) AND ' +
        '(x.valid_at IS NULL OR x.valid_at <= $3::timestamptz) AND (x.invalid_at IS NULL OR x.invalid_at > $4::timestamptz OR x.expired_at > $5::timestamptz)',
    );
    expect(live.params).toEqual([knownAt, knownAt, asOf, asOf, knownAt].map((d) => d.toISOString()));
  });

  it('marks what an edge was at the instant: superseded over ended, live unmarked', () => {
    const edge = { id: 1, invalidAt: null, expiredAt: null } as unknown as GbEdge;
    expect(markHistory(edge, asOf)).toBe(edge);
    expect(markHistory({ ...edge, invalidAt: new Date('2024-01-01') }, asOf).history).toBe('ended');
    expect(markHistory({ ...edge, invalidAt: new Date('2025-01-01') }, asOf).history).toBeUndefined();
    expect(markHistory({ ...edge, invalidAt: new Date('2024-01-01'), expiredAt: new Date('2024-02-01') }, asOf).history).toBe('superseded');
    expect(markHistory({ ...edge, expiredAt: new Date('2024-07-01') }, asOf).history).toBeUndefined();
  });

  it('keeps the prompts as they were without as_of and history, and gives the instant with it', () => {
    expect(gbQuerySystem()).toBe(GB_QUERY_SYSTEM);
    expect(gbQuerySystem({})).toBe(GB_QUERY_SYSTEM);
    expect(gbQuerySystem({ asOf })).not.toContain('<current_time> is the time now');
    expect(gbQuerySystem({ includeHistory: true })).toContain('history=superseded');
    expect(gbQueryUser('q', { entities: [], edges: [], passages: [] }, asOf)).toContain('<current_time>2024-06-01T00:00:00Z</current_time>');
  });
});
