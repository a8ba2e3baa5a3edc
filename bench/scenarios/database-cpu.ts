import { Pool } from 'pg';
import { cpuMs } from './api-process';

/**
 * CPU time (user + system) the database server's backends spent on one database while a cell
 * ran. A question's cost is the API's CPU plus this, and unlike latency or throughput it barely
 * moves when other work shares the machine, so two builds compare on it even on a busy host.
 * The server must be on this machine (/proc); elsewhere every reading is undefined.
 */
export class DatabaseCpu {
  private readonly pool: Pool;

  constructor(databaseUrl: string) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 1 });
    this.pool.on('error', () => undefined);
  }

  /** CPU ms per backend of this database, this sampler's own connection left out. */
  async sample(): Promise<Map<number, number>> {
    const { rows } = await this.pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const sample = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = cpuMs(pid);
      if (ms !== undefined) sample.set(pid, ms);
    }
    return sample;
  }

  /**
   * CPU ms spent between `before` and now. A backend that started in between counts whole; one
   * that ended in between is lost (the APIs' pools are warm after the checks, so none should).
   */
  async since(before: Map<number, number>): Promise<number | undefined> {
    const after = await this.sample();
    if (after.size === 0) return undefined;
    let total = 0;
    for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
    return total;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
