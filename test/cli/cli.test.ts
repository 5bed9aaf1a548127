import { describe, expect, it } from 'vitest';
import { cli, cliDatabase } from '../helpers/cli.js';
import { TEST_DB } from '../helpers/database.js';

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
    const { env, cleanup } = await cliDatabase();
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
