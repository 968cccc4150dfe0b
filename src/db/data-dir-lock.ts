/**
 * The embedded database must be opened by one process at a time: two PGlite instances writing the
 * same directory corrupt it. A lock file holding the owner's pid keeps a second process out (the
 * CLI while the server runs, or a second server), and a stale lock of a dead process is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'storefront.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(
          `the embedded database in ${dataDir} is in use by process ${owner}; stop it first, or use DATABASE_URL for a shared PostgreSQL server`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
