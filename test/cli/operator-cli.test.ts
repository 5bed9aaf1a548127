import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { cli, cliDatabase } from '../helpers/cli.js';

const CENTRE_ID = '60000000-0000-4000-8000-000000000001';
const FILE = {
  centres: [{ id: CENTRE_ID, ...NEW_CENTRE }],
  sessions: [
    { id: '61000000-0000-4000-8000-000000000001', ...newSession(CENTRE_ID, { courseNumber: 'CLI-1' }) },
    {
      id: '61000000-0000-4000-8000-000000000002',
      ...newSession(CENTRE_ID, { courseNumber: 'CLI-2', day1: '2030-03-21' }),
    },
  ],
};

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let dir: string;
beforeAll(async () => {
  ({ env, cleanup } = await cliDatabase());
  dir = await mkdtemp(join(tmpdir(), 'stages-files-'));
}, 120_000);
afterAll(async () => {
  await cleanup();
  await rm(dir, { recursive: true, force: true });
});

// Each import and export is a process of its own, reading and checking the demo catalogue's 21,380
// records: two minutes were not enough on a loaded two-core machine (CI, Node 20, PostgreSQL).
describe('operator command line', { timeout: 300_000 }, () => {
  it('imports a file (dry run first), and an export imported back changes nothing', async () => {
    const file = join(dir, 'catalogue.json');
    await writeFile(file, JSON.stringify(FILE));
    const dry = await cli(['import', file, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run: the file is valid; nothing was written.');
    expect(dry.stdout).toContain('sessions: 2 created, 0 updated, 0 unchanged');
    const real = await cli(['import', file], env);
    expect(real.stdout).toContain('centres: 1 created');

    for (const format of ['json', 'csv', 'ndjson']) {
      const out = await cli(['export', '--format', format], env);
      expect(out.code, out.stderr).toBe(0);
      const exported = join(dir, `export.${format}`);
      await writeFile(exported, out.stdout);
      const again = await cli(['import', exported], env);
      expect(again.code, again.stderr).toBe(0);
      // On PostgreSQL the test database also holds the demo catalogue.
      expect(again.stdout).toMatch(/centres: 0 created, 0 updated, [1-9]\d* unchanged/);
      // At least the file's two sessions (any count: the demo's depends on the day it was made).
      const unchanged = /sessions: 0 created, 0 updated, (\d+) unchanged/.exec(again.stdout)?.[1];
      expect(Number(unchanged), again.stdout).toBeGreaterThanOrEqual(2);
    }
    expect(await readFile(join(dir, 'export.csv'), 'utf8')).toMatch(/^type,id,slug,/);
  });

  it('refuses a bad file with exit 65, listing each bad record', async () => {
    const file = join(dir, 'bad.ndjson');
    await writeFile(
      file,
      `${JSON.stringify({ type: 'session', id: '61000000-0000-4000-8000-000000000003', ...newSession(CENTRE_ID, { courseNumber: 'CLI-3', day1: '2030-03-24' }) })}\n${JSON.stringify({ type: 'thing' })}\n`,
    );
    const res = await cli(['import', file], env);
    expect(res.code).toBe(65);
    expect(res.stderr).toContain('record 0 (line 1) 61000000-0000-4000-8000-000000000003: day1:');
    expect(res.stderr).toContain('record 1 (line 2): type: type must be "centre" or "session"');
    expect((await cli(['import', join(dir, 'missing.json')], env)).code).toBe(1);
    expect((await cli(['import'], env)).code).toBe(64);
  });

  it('holds an import to IMPORT_MAX_RECORDS, or to --max-records', async () => {
    const file = join(dir, 'three.json');
    await writeFile(file, JSON.stringify(FILE));
    const refused = await cli(['import', file, '--dry-run'], { ...env, IMPORT_MAX_RECORDS: '2' });
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain('The import holds more than 2 records');
    expect((await cli(['import', file, '--dry-run', '--max-records', '2'], env)).code).toBe(65);
    const taken = await cli(['import', file, '--dry-run', '--max-records', '3'], { ...env, IMPORT_MAX_RECORDS: '2' });
    expect(taken.code, taken.stderr).toBe(0);
    expect((await cli(['import', file, '--max-records', 'many'], env)).code).toBe(64);
  });

  it('creates, lists and revokes API keys; the key works on the admin API until revoked', async () => {
    expect((await cli(['apikey:create', '--role', 'partner', '--name', 'x'], env)).stderr).toContain('--centre');
    expect((await cli(['apikey:create', '--role', 'root', '--name', 'x'], env)).code).toBe(64);
    expect(
      (await cli(['apikey:create', '--role', 'partner', '--centre', 'nowhere', '--name', 'x'], env)).stderr,
    ).toContain('No centre has the slug or id "nowhere"');
    const created = await cli(
      ['apikey:create', '--role', 'partner', '--centre', NEW_CENTRE.slug, '--name', 'Route Sereine'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const key = /sk_[0-9a-f]{16}_[\w-]{43}/.exec(created.stdout)?.[0] as string;
    const id = key.slice(3, 19);
    expect(created.stdout).toContain(`Created partner key ${id}`);

    const list = await cli(['apikey:list'], env);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain(CENTRE_ID);
    expect(list.stdout).not.toContain(key);

    const config = loadConfig({
      ...env,
      LOG_LEVEL: 'silent',
      RATE_LIMIT: 'off',
      PUBLIC_BASE_URL: 'https://stages.example.test',
    });
    const call = async () => {
      const database = await openDatabase(config.database);
      const app = await buildApp(config, { database, logger: false });
      try {
        return (
          await app.inject({
            url: `/api/admin/sessions?centreId=${CENTRE_ID}`,
            headers: { authorization: `Bearer ${key}` },
          })
        ).statusCode;
      } finally {
        await app.close();
        await database.close();
      }
    };
    expect(await call()).toBe(200);
    const revoked = await cli(['apikey:revoke', id], env);
    expect(revoked.stdout).toContain(`Key ${id} revoked.`);
    expect(await call()).toBe(401);
    expect((await cli(['apikey:revoke', id], env)).code).toBe(64);
  });
});
