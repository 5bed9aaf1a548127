import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DB } from '../helpers/database.js';

const run = promisify(execFile);
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('command line', () => {
  it('prints help listing its commands', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('migrate');
    expect(stdout).toContain('demo [--seed TEXT]');
  });

  it('refuses an unknown command or option with a usage exit code', async () => {
    expect((await cli(['frobnicate'])).code).toBe(64);
    const bad = await cli(['demo', '--bogus']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("Unknown option '--bogus'");
  });

  it('stops on a bad setting, naming it', async () => {
    const { code, stderr } = await cli(['migrate'], { DATABASE_URL: 'mysql://nope' });
    expect(code).toBe(78);
    expect(stderr).toContain('DATABASE_URL');
  });

  it(`migrates and loads the demo catalogue (${TEST_DB})`, { timeout: 120_000 }, async () => {
    // The embedded database in a fresh directory; PostgreSQL in a fresh database of its own.
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    if (TEST_DB === 'pglite') {
      const dir = await mkdtemp(join(tmpdir(), 'stages-cli-'));
      env = { DATA_DIR: dir };
      cleanup = () => rm(dir, { recursive: true, force: true });
    } else {
      const db = await openTestDatabase();
      await db.database.close();
      env = { DATABASE_URL: db.url as string };
      cleanup = () => db.dispose();
    }
    try {
      expect((await cli(['migrate'], env)).stdout).toContain('Migrations applied.');
      const demo = await cli(['demo', '--seed', 'cli-test', '--today', '2030-01-07'], env);
      expect(demo.code).toBe(0);
      expect(demo.stdout).toMatch(
        /Demo catalogue loaded \(seed "cli-test", from 2030-01-07\): \d{4} centres, \d{5} sessions\./,
      );
    } finally {
      await cleanup();
    }
  });
});
