import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import lockfile from 'proper-lockfile';

/**
 * The embedded store belongs to one process. PGlite keeps no lock of its own: a second process
 * opening the same data directory (`loci init` beside a running server, a worker, a migration)
 * wrote through its own copy of the database and the two overwrote each other's pages (an
 * operator created by `init` was gone after the server's restart). So whoever opens the
 * directory first holds a lock on it until it closes, and everyone else is refused at once with
 * who holds it and what to do.
 *
 * The lock is proper-lockfile's (an atomic mkdir beside the directory, its mtime renewed while
 * held, released on exit); a process killed with SIGKILL leaves it behind until it is stale.
 * Beside it, an owner file says who holds it, so the refusal can name the process, and so a
 * lock whose owner is dead on this host is waited out (for at most the stale time) rather than
 * refused.
 */
const STALE_AFTER_MS = 10_000;

export interface DataDirectoryOwner {
  pid: number;
  host: string;
  command: string;
  since: string;
}

export class DataDirectoryInUseError extends Error {
  readonly code = 'LOCI_DATA_DIRECTORY_IN_USE';
  constructor(
    readonly directory: string,
    readonly owner: DataDirectoryOwner | undefined,
  ) {
    const who = owner ? `process ${owner.pid} on ${owner.host} (${owner.command}), since ${owner.since}` : 'another process';
    super(
      `The embedded store in ${directory} is in use by ${who}. It belongs to one process at a time: ` +
        'stop that process first (commands such as `loci init` and `npm run migrate` run while the server is stopped), ' +
        'or set DATABASE_URL to a PostgreSQL that several processes can share.',
    );
    this.name = 'DataDirectoryInUseError';
  }
}

export interface DataDirectoryLock {
  release(): Promise<void>;
}

const ownerFileOf = (directory: string) => `${directory}.owner.json`;

/**
 * Takes the directory's lock, or throws DataDirectoryInUseError. `onLost` is called if another
 * process took the lock while this one held it (this one stalled past the stale time): two
 * writers on one directory corrupt it, so the caller should stop.
 */
export async function lockDataDirectory(directory: string, onLost: (error: Error) => void): Promise<DataDirectoryLock> {
  const owner = readOwner(directory);
  // No owner file beside a lock: its holder died between the two steps (a live one writes it at once).
  const ownerIsDead = owner === undefined || (owner.host === hostname() && !isAlive(owner.pid));
  let releaseLock: () => Promise<void>;
  try {
    releaseLock = await lockfile.lock(directory, {
      stale: STALE_AFTER_MS,
      realpath: false,
      onCompromised: onLost,
      // A dead owner's lock goes stale within STALE_AFTER_MS: wait for it. A live owner's never does: refuse now.
      retries: ownerIsDead ? { retries: STALE_AFTER_MS / 500 + 2, minTimeout: 500, maxTimeout: 500, factor: 1 } : 0,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirectoryInUseError(directory, readOwner(directory));
    throw error;
  }
  const mine: DataDirectoryOwner = { pid: process.pid, host: hostname(), command: commandLine(), since: new Date().toISOString() };
  writeFileSync(ownerFileOf(directory), JSON.stringify(mine));
  let released: Promise<void> | undefined;
  return {
    release() {
      // Only the holder writes the owner file, so it is still this process's. Once: a store closed twice releases once.
      released ??= (async () => {
        rmSync(ownerFileOf(directory), { force: true });
        await releaseLock();
      })();
      return released;
    },
  };
}

function readOwner(directory: string): DataDirectoryOwner | undefined {
  try {
    return JSON.parse(readFileSync(ownerFileOf(directory), 'utf8')) as DataDirectoryOwner;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists and belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The script and its arguments, relative to where it was started: enough to recognise a server from a CLI. */
function commandLine(): string {
  return process.argv.slice(1).map((arg) => arg.replace(`${process.cwd()}/`, '')).join(' ');
}
