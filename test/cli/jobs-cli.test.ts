import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { jobs } from '../../src/db/schema.js';
import { enqueue } from '../../src/jobs/enqueue.js';
import { cli, cliDatabase } from '../helpers/cli.js';

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ env, cleanup } = await cliDatabase());
  expect((await cli(['migrate'], env)).code).toBe(0);
  // Two failed emails, one of them secret (its payload erased), and one waiting; then the CLI alone.
  const database = await openDatabase(loadConfig(env).database);
  const db = database.db;
  await enqueue(db, 'mail', { to: 'eloise@example.org', subject: 's', text: 't' });
  await enqueue(db, 'mail', {}, { secret: true });
  await enqueue(db, 'mail', { to: 'centre@example.org', subject: 's', text: 't' });
  await db.execute(
    sql`update ${jobs} set state = 'failed', failed_at = now(), attempts = 12, last_error = 'Error:ECONNREFUSED' where id < (select max(id) from ${jobs})`,
  );
  await database.close();
}, 120_000);
afterAll(() => cleanup());

describe('jobs on the command line', { timeout: 120_000 }, () => {
  it('lists what waits and what failed, without any content, and puts failed jobs back', async () => {
    const list = await cli(['jobs:list'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/failed\s+mail\s+2/);
    expect(list.stdout).toMatch(/pending\s+mail\s+1/);
    expect(list.stdout).toContain('Error:ECONNREFUSED');
    expect(list.stdout).toContain('(secret: erased, cannot be retried)');
    expect(list.stdout).not.toContain('@example.org');

    expect((await cli(['jobs:retry'], env)).code).toBe(64);
    expect((await cli(['jobs:retry', 'x'], env)).code).toBe(64);
    const retry = await cli(['jobs:retry', '--all'], env);
    expect(retry.stdout).toContain('1 failed job put back in the queue');
    const after = await cli(['jobs:list'], env);
    expect(after.stdout).toMatch(/pending\s+mail\s+2/);
    expect(after.stdout).toMatch(/failed\s+mail\s+1/);
  });
});
