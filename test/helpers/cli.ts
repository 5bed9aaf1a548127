import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, TEST_DB } from './database.js';

const run = promisify(execFile);

/**
 * Runs the real command line as `npm run cli -- …` does (`node dist/cli/index.js`: build first;
 * `npm test` does) and returns its exit code and output.
 */
export function cli(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['dist/cli/index.js', ...args], {
    env: { ...process.env, ...env },
    // An export of the demo catalogue is several megabytes.
    maxBuffer: 256 * 1024 * 1024,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/**
 * Settings pointing the CLI at a database of its own: the embedded database in a fresh
 * directory, or a fresh PostgreSQL database, as the test project runs. `cleanup` removes it.
 */
export async function cliDatabase(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (TEST_DB === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'stages-cli-'));
    return { env: { DATA_DIR: dir }, cleanup: () => rm(dir, { recursive: true, force: true }) };
  }
  const db = await openTestDatabase();
  await db.database.close();
  return { env: { DATABASE_URL: db.url as string }, cleanup: () => db.dispose() };
}
