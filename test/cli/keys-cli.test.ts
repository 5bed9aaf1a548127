import { describe, expect, it } from 'vitest';
import { cli, cliDatabase } from '../helpers/cli.js';
import { TEST_DB } from '../helpers/database.js';

describe('keys:rotate and keys:list', () => {
  it('documents both commands in --help', async () => {
    const { code, stdout } = await cli(['--help'], {});
    expect(code).toBe(0);
    expect(stdout).toContain('keys:rotate');
    expect(stdout).toContain('keys:list');
    const rotate = await cli(['keys:rotate', '--help'], {});
    expect(rotate.stdout).toMatch(/previous one keeps verifying/);
  });

  it(`rotates the signing key and lists the old one as retiring (${TEST_DB})`, { timeout: 120_000 }, async () => {
    const { env, cleanup } = await cliDatabase();
    try {
      expect((await cli(['keys:list'], env)).stdout).toMatch(/No signing key yet/);
      const first = await cli(['keys:rotate'], env);
      expect(first.code).toBe(0);
      const firstKid = /New signing key (\S+) is active/.exec(first.stdout)?.[1];
      expect(firstKid).toBeDefined();
      const second = await cli(['keys:rotate'], env);
      expect(second.stdout).toContain(`Key ${firstKid} stops signing and stays published until`);
      const secondKid = /New signing key (\S+) is active/.exec(second.stdout)?.[1];
      const list = (await cli(['keys:list'], env)).stdout.trim().split('\n');
      expect(list).toHaveLength(2);
      expect(list[0]).toMatch(new RegExp(`^${firstKid} .* retiring, verifies until \\d{4}-`));
      expect(list[1]).toMatch(new RegExp(`^${secondKid} .* active$`));
    } finally {
      await cleanup();
    }
  });
});
