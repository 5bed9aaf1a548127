import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { McpAnswerCache } from '../../src/mcp/fast-path.js';
import { keysFor, NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/**
 * Kept MCP answers outlive the catalogue changes that cannot alter them, and only those. Two apps
 * on one database: `t.app` with the fast path, `sdk` without; after each change both have applied
 * it, and every answer of the fast path must be byte for byte the SDK's, `updatedAt` included. The
 * counters tell whether an answer was replayed (kept) or computed again.
 */

const MODERN_HEADERS = {
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'search_stages',
};
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A search_stages call, in the 2026-07-28 era or an initialize-era one. */
function searchCall(args: Record<string, unknown>, modern = false) {
  return {
    headers: modern ? MODERN_HEADERS : { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    message: {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'search_stages', arguments: args, ...(modern ? { _meta: ENVELOPE } : {}) },
    },
  };
}

type Call = ReturnType<typeof searchCall>;

async function post(app: FastifyInstance, c: Call, id: number) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: c.headers,
    payload: JSON.stringify({ ...c.message, id }),
  });
  return { status: res.statusCode, body: res.body };
}

const listed = (answer: { body: string }) =>
  (JSON.parse(answer.body).result.structuredContent.data as { id: string }[]).map((s) => s.id);

describe('MCP fast path across catalogue changes', () => {
  let t: TestApp;
  let sdk: FastifyInstance;
  let keys: Awaited<ReturnType<typeof keysFor>>;
  const clock = frozenClock(FIXTURE_NOW);

  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
    sdk = await buildApp(testConfig({ MCP_ANSWER_CACHE: 'off' }), { database: t.db.database, logger: false, clock });
    await sdk.ready();
    keys = await keysFor(t.app, CENTRES.lyon.id);
  });
  afterAll(async () => {
    await sdk?.close();
    await t?.close();
  });

  const cache = () => t.app.mcpAnswerCache as McpAnswerCache;

  /** Sends a write, then waits until both apps have applied it. */
  async function write(method: 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) {
    const before = t.app.catalogue.snapshot.version;
    const res = await t.app.inject({ method, url, headers: keys.admin, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    const end = Date.now() + 5000;
    while (Date.now() < end) {
      await Promise.all([t.app.catalogue.refresh(), sdk.catalogue.refresh()]);
      const version = t.app.catalogue.snapshot.version;
      if (version > before && sdk.catalogue.snapshot.version === version) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the change did not reach both apps');
  }

  /** Asks `c` of the fast path: whether it was replayed, and that it is the SDK's answer. */
  async function ask(c: Call, id: number): Promise<{ replayed: boolean; ids: string[] }> {
    const hits = cache().hits;
    const fast = await post(t.app, c, id);
    expect(fast).toEqual(await post(sdk, c, id));
    return { replayed: cache().hits > hits, ids: listed(fast) };
  }

  it('keeps an answer through a change in another department, with the catalogue’s new updatedAt', async () => {
    for (const modern of [false, true]) {
      const paris = searchCall({ dept: '75', includeUnavailable: true, limit: 50 }, modern);
      await ask(paris, 1);
      expect((await ask(paris, 2)).replayed).toBe(true);
      const iso = t.app.catalogue.snapshot.updatedAtIso;
      await write('POST', `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`, { change: -1 });
      expect(t.app.catalogue.snapshot.updatedAtIso).not.toBe(iso);
      // Replayed, and equal to the SDK's answer: its updatedAt is the change's.
      expect((await ask(paris, 3)).replayed).toBe(true);
      const body = JSON.parse((await post(t.app, paris, 4)).body);
      expect(body.result.structuredContent.updatedAt).toBe(t.app.catalogue.snapshot.updatedAtIso);
    }
  });

  it('computes an answer again when a session of its department changes', async () => {
    const lyon = searchCall({ dept: '69', includeUnavailable: true, limit: 50 });
    await ask(lyon, 1);
    expect((await ask(lyon, 2)).replayed).toBe(true);
    await write('POST', `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`, { change: -1 });
    expect((await ask(lyon, 3)).replayed).toBe(false);
  });

  it('computes an answer again when a new session matches its filters, and when one leaves it', async () => {
    const paris = searchCall({ dept: '75', includeUnavailable: true, limit: 50 }, true);
    await ask(paris, 1);
    expect((await ask(paris, 2)).replayed).toBe(true);
    const added = '74000000-0000-4000-8000-000000000001';
    await write(
      'PUT',
      `/api/admin/sessions/${added}`,
      newSession(CENTRES.paris.id, { courseNumber: 'SCOPE-1', declaredOn: '2030-01-02' }),
    );
    const withNew = await ask(paris, 3);
    expect(withNew.replayed).toBe(false);
    expect(withNew.ids).toContain(added);
    expect((await ask(paris, 4)).replayed).toBe(true);
    // A Paris session moved to Lyon leaves the Paris answer (its department changed).
    await write(
      'PUT',
      `/api/admin/sessions/${added}`,
      newSession(CENTRES.lyon.id, { courseNumber: 'SCOPE-1', declaredOn: '2030-01-02' }),
    );
    const without = await ask(paris, 5);
    expect(without.replayed).toBe(false);
    expect(without.ids).not.toContain(added);
    expect(without.ids).toContain(SESSIONS.parisMar12.id);
    await write('PATCH', `/api/admin/sessions/${SESSIONS.parisMar12.id}`, { status: 'cancelled' });
    const cancelled = await ask(paris, 6);
    expect(cancelled.replayed).toBe(false);
    expect(cancelled.ids).not.toContain(SESSIONS.parisMar12.id);
  });

  it('computes a search by town again when any centre changes, and keeps a department’s', async () => {
    const byTown = searchCall({ city: 'paris', includeUnavailable: true, limit: 50 });
    const byDept = searchCall({ dept: '75', includeUnavailable: true, limit: 50 });
    for (const c of [byTown, byDept]) await ask(c, 1);
    // A new centre in the Rhône: a town search could now match it; the Paris department cannot.
    await write('PUT', '/api/admin/centres/75000000-0000-4000-8000-000000000001', NEW_CENTRE);
    expect((await ask(byTown, 2)).replayed).toBe(false);
    expect((await ask(byDept, 3)).replayed).toBe(true);
  });
});
