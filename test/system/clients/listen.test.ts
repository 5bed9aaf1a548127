import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { keysFor } from '../../helpers/admin-keys.js';
import { CENTRES, SESSIONS } from '../../helpers/fixtures.js';
import { connect, ERAS, type McpTestServer, startMcpTestServer } from '../../helpers/mcp.js';
import { type SecondInstance, secondInstance } from '../../helpers/second-instance.js';

/*
 * Following a session with the official SDKs, behind two instances on one PostgreSQL (the interop
 * project's database), as a load balancer without sticky sessions would spread them: the 2.x
 * client's subscriptions/listen on one instance hears of a change made on the other; the 1.x
 * client (initialize era) is told resources.subscribe is false.
 */

const uri = (id: string) => `stages://sessions/${id}`;
const lyon = SESSIONS.lyonMar5;
const paris = SESSIONS.parisMar12;

let server: McpTestServer | undefined;
let other: SecondInstance | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
  await server?.close();
  server = undefined;
});

async function places(id: string, change: number) {
  const app = server!.app;
  const keys = await keysFor(app, CENTRES.lyon.id);
  const res = await app.inject({
    method: 'POST',
    url: `/api/admin/sessions/${id}/places`,
    headers: keys.admin,
    payload: { change },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('subscriptions/listen across instances, SDK 2.x client (2026-07-28)', () => {
  it('a listen held by one instance hears of a change made on the other within a second, and of nothing else', async () => {
    server = await startMcpTestServer();
    other = await secondInstance(server);
    const client = await connect(new URL('/api/mcp', other.base), ERAS[0]!);
    try {
      const got: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        got.push(n.params.uri);
      });
      const sub = await client.listen({ resourceSubscriptions: [uri(lyon.id)] });
      expect(sub.honoredFilter).toEqual({ resourceSubscriptions: [uri(lyon.id)] });
      await places(paris.id, -1);
      await places(lyon.id, -1);
      const end = Date.now() + 1000;
      while (got.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      expect(got).toEqual([uri(lyon.id)]);
      // The resource, read on the listening instance, is the change made on the other.
      const read = await client.readResource({ uri: uri(lyon.id) });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ spotsAvailable: 2 });
      await sub.close();
    } finally {
      await client.close();
    }
  });
});

describe('the initialize era, SDK 1.x client', () => {
  it('is told resources.subscribe is false, and resources/subscribe answers where to follow a session', async () => {
    server = await startMcpTestServer();
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(new V1Transport(server.endpoint));
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: false });
      const refused = await client.subscribeResource({ uri: uri(lyon.id) }).catch((e: Error) => e);
      expect(refused).toMatchObject({ code: -32601 });
      expect((refused as Error).message).toContain('GET /api/stages/events?sessionId=');
    } finally {
      await client.close();
    }
  });
});
