import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS, type McpTestServer, rawPost, startMcpTestServer } from '../helpers/mcp.js';

/*
 * The 2026-07-28 revision's subscriptions/listen on the sessions' resources, as the official 2.x
 * client opens it; and what the initialize-era revisions are told instead. Across two instances, and
 * with the 1.x client: test/system/clients/listen.test.ts.
 */

const MODERN = ERAS[0]!;
const uri = (id: string) => `stages://sessions/${id}`;
const lyon = SESSIONS.lyonMar5;
const paris = SESSIONS.parisMar12;

let server: McpTestServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
});

async function client(endpoint: URL): Promise<Client> {
  const c = await connect(endpoint, MODERN);
  clients.push(c);
  return c;
}

/** The URIs of the resources/updated notifications a client receives, in order. */
function updates(c: Client): string[] {
  const got: string[] = [];
  c.setNotificationHandler('notifications/resources/updated', (n) => {
    got.push(n.params.uri);
  });
  return got;
}

async function until(ok: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function placesOn(t: { app: McpTestServer['app'] }, id: string, change: number) {
  const keys = await keysFor(t.app, CENTRES.lyon.id);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/admin/sessions/${id}/places`,
    headers: keys.admin,
    payload: { change },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('subscriptions/listen (2026-07-28), SDK 2.x client', () => {
  it('declares resources.subscribe on this revision, and honours only the sessions it holds', async () => {
    server = await startMcpTestServer();
    const c = await client(server.endpoint);
    expect(c.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: true });
    const sub = await c.listen({
      resourceSubscriptions: [
        uri(lyon.id),
        uri(lyon.id.toUpperCase()),
        uri('00000000-0000-4000-8000-00000000dead'),
        'stages://articles/le-stage-en-bref',
      ],
    });
    // The same session twice (canonical form once); no unknown session, no article (they do not change).
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [uri(lyon.id)] });
    await sub.close();
  });

  it('notifies a change of places of a session listened to, and nothing of another session', async () => {
    server = await startMcpTestServer();
    const c = await client(server.endpoint);
    const got = updates(c);
    const sub = await c.listen({ resourceSubscriptions: [uri(lyon.id)] });
    await placesOn(server, paris.id, -1);
    await placesOn(server, lyon.id, -1);
    await until(() => got.length >= 1);
    await placesOn(server, lyon.id, 1);
    await until(() => got.length >= 2);
    // Paris's change came first on the same stream: had it been sent, it would be here.
    expect(got).toEqual([uri(lyon.id), uri(lyon.id)]);
    // The notification says which resource: reading it gives the state now.
    const read = await c.readResource({ uri: uri(lyon.id) });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ spotsAvailable: 3 });
    await sub.close();
  });

  it('ends every listen gracefully when the instance drains, and refuses new ones', async () => {
    server = await startMcpTestServer();
    const c = await client(server.endpoint);
    const sub: McpSubscription = await c.listen({ resourceSubscriptions: [uri(lyon.id)] });
    server.app.lifecycle.startDraining();
    expect(await sub.closed).toBe('graceful');
    await expect(c.listen({ resourceSubscriptions: [uri(lyon.id)] })).rejects.toThrow(/shutting down/);
  });

  it('refuses clearly past its caps: listens per instance, resources per listen', async () => {
    server = await startMcpTestServer({ MCP_LISTEN_MAX: '1', MCP_LISTEN_MAX_RESOURCES: '2' });
    const c = await client(server.endpoint);
    await expect(
      c.listen({ resourceSubscriptions: [uri(lyon.id), uri(paris.id), uri(SESSIONS.bourgMar14.id)] }),
    ).rejects.toThrow(/at most 2 resources/);
    const first = await c.listen({ resourceSubscriptions: [uri(lyon.id)] });
    await expect(c.listen({ resourceSubscriptions: [uri(paris.id)] })).rejects.toThrow(
      /as many subscriptions\/listen streams as it can \(1\)/,
    );
    await first.close();
    // A closed listen frees its place (once the server has seen its stream close).
    let again: McpSubscription | undefined;
    for (let i = 0; i < 100 && !again; i++) {
      again = await c.listen({ resourceSubscriptions: [uri(paris.id)] }).catch(() => undefined);
      if (!again) await new Promise((r) => setTimeout(r, 20));
    }
    expect(again?.honoredFilter).toEqual({ resourceSubscriptions: [uri(paris.id)] });
    await again?.close();
  });
});

describe('the initialize-era revisions: no resources/subscribe on this stateless endpoint', () => {
  it.each(ERAS.slice(1))('say subscribe: false to the 2.x client on $label', async (era) => {
    server = await startMcpTestServer();
    const c = await connect(server.endpoint, era);
    clients.push(c);
    expect(c.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: false });
  });

  it('answers a raw resources/subscribe with -32601 naming the alternatives', async () => {
    server = await startMcpTestServer();
    const res = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/subscribe', params: { uri: uri(lyon.id) } }),
    );
    expect(res.json).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(res.json.error.message).toContain('subscriptions/listen');
  });
});
