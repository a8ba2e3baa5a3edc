import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system, ms) of a process, here a PostgreSQL backend on this machine (its `pg_backend_pid()`). */
export function backendCpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
