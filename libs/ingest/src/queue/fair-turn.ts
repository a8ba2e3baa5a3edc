import { sql, SQL } from 'drizzle-orm';

/**
 * Turns in the fair queue: start-time fair queuing across tenants (issue 34.1).
 *
 * Every queued job carries a turn (`fair_tag`); claims hand out the queued job with the lowest
 * turn. A job queued now takes the later of:
 *   - the turn after its tenant's last queued one: behind its own backlog, one turn a job;
 *   - the queue's first turn (the lowest queued): never ahead of what is served now, so a
 *     tenant cannot bank turns while idle.
 * (Start-time fair queuing's start tag: max(virtual time, the flow's previous finish).) So two
 * tenants with backlogs alternate job by job, and a tenant with one new document is served
 * next but one (per free worker), whatever another tenant has queued: 10,000 documents queued
 * by A are turns t..t+9999, and B's one document queued meanwhile shares the queue's first turn
 * (a tie goes to the job queued first), ahead of all of A's but that one.
 *
 * Turns are taken within a job's class: background work (a bulk load's documents and index
 * builds, the geo backfill) has its own line, claimed only when no other job is ready.
 *
 * Both reads are the first row of a partial index over queued jobs (jobs_ready_idx or
 * jobs_background_ready_idx on the turn, jobs_tenant_queued_idx on tenant, class and turn): two
 * index probes per queued job, whatever the backlog. Two jobs of a tenant queued at the same instant may get the same turn; ties are
 * served in index order.
 */
export function nextTurnFor(tenantId: SQL | string, background: SQL | boolean = false): SQL {
  // A literal class lets the planner match the class's partial index; a column (a re-queued
  // row's own class) is compared as a value.
  const headIn = typeof background === 'boolean' ? sql.raw(background ? 'head.background' : 'NOT head.background') : sql`head.background = ${background}`;
  return sql`greatest(
      (SELECT mine.fair_tag FROM jobs AS mine
        WHERE mine.status = 'queued' AND mine.tenant_id = ${tenantId} AND mine.background = ${background}
        ORDER BY mine.fair_tag DESC LIMIT 1) + 1,
      (SELECT head.fair_tag FROM jobs AS head WHERE head.status = 'queued' AND ${headIn} ORDER BY head.fair_tag LIMIT 1),
      1)`;
}
