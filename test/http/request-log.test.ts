import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

/** The app logging at `info` into an array of parsed lines. */
async function appWithLog(env: Record<string, string>) {
  const db = await openTestDatabase();
  const lines: Record<string, unknown>[] = [];
  const app = await buildApp(testConfig({ LOG_LEVEL: 'info', ...env }), {
    database: db.database,
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
  });
  await app.ready();
  return { app, db, lines, requestLines: () => lines.filter((l) => l.msg === 'request answered') };
}

describe('request logs', () => {
  let opened: { app: { close(): Promise<unknown> }; db: TestDatabase } | undefined;
  afterEach(async () => {
    await opened?.app.close();
    await opened?.db.dispose();
    opened = undefined;
  });

  it('log one line per error and per write, and no successful read when sampling is 0', async () => {
    const t = await appWithLog({ LOG_SAMPLE_READS: '0' });
    opened = t;
    for (let i = 0; i < 20; i++) await t.app.inject('/api/stages?dept=69');
    await t.app.inject('/api/stages?dept=999');
    await t.app.inject({ method: 'POST', url: '/api/oauth/register', payload: { client_name: 'log-test' } });
    const logged = t.requestLines();
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({
      method: 'GET',
      url: '/api/stages?dept=999',
      statusCode: 400,
      route: '/api/stages',
    });
    expect(logged[1]).toMatchObject({ method: 'POST', url: '/api/oauth/register', statusCode: 201 });
    for (const line of logged) {
      expect(typeof line.reqId).toBe('string');
      expect(typeof line.ms).toBe('number');
    }
    // Fastify's own two lines per request are off.
    expect(t.lines.some((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toBe(false);
  });

  it('log every successful read with sampling at 1, marked as sampled', async () => {
    const t = await appWithLog({ LOG_SAMPLE_READS: '1' });
    opened = t;
    for (let i = 0; i < 5; i++) await t.app.inject('/api/stages?dept=69');
    const logged = t.requestLines();
    expect(logged).toHaveLength(5);
    expect(logged[0]).toMatchObject({ statusCode: 200, sampled: 1 });
  });

  it('log every MCP call the SDK answers, and sample those the fast path replays, as reads', async () => {
    const t = await appWithLog({ LOG_SAMPLE_READS: '0' });
    opened = t;
    const call = (id: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-protocol-version': '2025-11-25',
        },
        payload: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'search_stages', arguments: { dept: '69' } },
        },
      });
    for (let id = 1; id <= 4; id++) expect((await call(id)).json().result.isError).toBeFalsy();
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
      payload: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'book_stage', arguments: {} } },
    });
    expect(unknown.json().error ?? unknown.json().result?.isError).toBeTruthy();
    // The first call (answered by the SDK) and the refused one; the three replays are sampled out.
    const logged = t.requestLines().filter((l) => l.url === '/api/mcp');
    expect(logged).toHaveLength(2);
  });

  it('cut a hostile URL short instead of copying it into the log', async () => {
    const t = await appWithLog({ LOG_SAMPLE_READS: '0' });
    opened = t;
    const long = `/api/stages?dept=${'9'.repeat(5000)}`;
    await t.app.inject(long);
    const [line] = t.requestLines();
    expect(String(line?.url).length).toBeLessThanOrEqual(513);
    expect(JSON.stringify(t.lines)).not.toContain('9'.repeat(600));
  });
});
