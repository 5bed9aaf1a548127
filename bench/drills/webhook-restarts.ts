/**
 * npm run drill:webhooks — a centre's receiver of webhooks, verifying every signature with the
 * `standardwebhooks` package, while the two compiled instances that deliver to it are killed and
 * restarted and the receiver itself is down for a while.
 *
 * On a PostgreSQL database of its own (`stages_drill_webhooks` on the machine's server: nothing of
 * the machine is stopped), two instances (ports 4731, 4732) and a receiver (4733). One centre's
 * subscription to `session.changed`; a writer sends a relative place change every 100 ms to one of
 * the centre's sessions, to whichever instance is up, and notes each acknowledged one. Meanwhile:
 * instance A is killed (SIGKILL) and restarted, the receiver answers 503 for a while, instance B is
 * stopped (SIGTERM, drained) and restarted. Then the writer stops and the drill waits for the queue.
 *
 * Verdict: every acknowledged change's event arrived (a change whose answer was lost may arrive too),
 * every signature verified, each session's events arrived in the order they happened, no 5xx from
 * the instances but 503 while draining; duplicates (at least once) are counted, not failed.
 * Exits 1 otherwise.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer, spawnService, untilHealthy } from '../support/instances.js';

const ADMIN_URL = process.env.WEBHOOK_DRILL_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = 'stages_drill_webhooks';
const PORTS = [4731, 4732] as const;
const RECEIVER_PORT = 4733;
const WRITE_EVERY_MS = 100;
const WAIT_FOR_QUEUE_S = Number(process.env.WEBHOOK_DRILL_WAIT_S ?? 180);

const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

const onServer = (statement: string) => runOnServer(ADMIN_URL, statement);

const instances: (ChildProcess | undefined)[] = [undefined, undefined];

async function start(i: number): Promise<void> {
  const port = PORTS[i] as number;
  instances[i] = spawnService(port, {
    DATABASE_URL: dbUrl,
    DEMO_CATALOGUE: 'false',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  await untilHealthy(`http://127.0.0.1:${port}`, 1200);
  console.log(`${at()}  instance ${'AB'[i]} up on ${port}`);
}

async function stop(i: number, signal: NodeJS.Signals): Promise<void> {
  const child = instances[i];
  if (!child) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
  instances[i] = undefined;
  console.log(`${at()}  instance ${'AB'[i]} stopped (${signal})`);
}

interface Received {
  firstAt: number;
  times: number;
  sessionId: string;
  timestamp: string;
}

function startReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const state = { down: false, bad: 0, received: new Map<string, Received>(), order: new Map<string, string[]>() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.down) {
        res.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      let event: { type: string; timestamp: string; data: { sessionId?: string } };
      try {
        event = verifier.verify(body, req.headers as Record<string, string>) as typeof event;
      } catch {
        state.bad++;
        res.writeHead(400).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      const seen = state.received.get(id);
      if (seen) seen.times++;
      else if (event.type === 'session.changed' && event.data.sessionId) {
        const sessionId = event.data.sessionId;
        state.received.set(id, { firstAt: Date.now(), times: 1, sessionId, timestamp: event.timestamp });
        state.order.set(sessionId, [...(state.order.get(sessionId) ?? []), event.timestamp]);
      }
      res.writeHead(204).end();
    });
  });
  return { state, server, listening: new Promise<void>((r) => server.listen(RECEIVER_PORT, '127.0.0.1', r)) };
}

async function main(): Promise<void> {
  await onServer(`drop database if exists ${NAME} with (force)`);
  await onServer(`create database ${NAME}`);
  const database = await openDatabase({ kind: 'postgres', url: dbUrl });
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
  const { key } = await createApiKey(database.db, { name: 'drill', role: 'admin', centreId: null });
  await database.close();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  await Promise.all([start(0), start(1)]);
  const origin = (i: number) => `http://127.0.0.1:${PORTS[i]}`;

  // A centre with at least four sessions with places on sale (each is taken, then given back, in turn).
  type Row = { id: string; centreId: string; spotsAvailable: number };
  const list = async (query: string) =>
    ((await (await fetch(`${origin(0)}/api/admin/sessions?${query}`, { headers })).json()) as { data: Row[] }).data;
  const today = dateIn(new Date());
  let centreId: string | undefined;
  let ids: string[] = [];
  for (const candidate of new Set((await list(`from=${today}&limit=1000`)).map((s) => s.centreId))) {
    ids = (await list(`centreId=${candidate}&from=${today}&limit=100`))
      .filter((s) => s.spotsAvailable >= 2)
      .map((s) => s.id);
    if (ids.length >= 4) {
      centreId = candidate;
      break;
    }
  }
  if (!centreId) throw new Error('no centre with four sessions with places on sale in the demo catalogue');
  const chosen = ids.slice(0, 4);

  const created = await fetch(`${origin(0)}/api/admin/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `http://127.0.0.1:${RECEIVER_PORT}/hooks`, events: ['session.changed'], centreId }),
  });
  if (created.status !== 201) throw new Error(`subscription: ${created.status} ${await created.text()}`);
  const { secret } = (await created.json()) as { secret: string };
  const receiver = startReceiver(secret);
  await receiver.listening;

  // The writer: one relative change every 100 ms, alternating −1 and +1 per session, to an instance that is up.
  const acked = new Map<string, number>(chosen.map((id) => [id, 0]));
  const sent = new Map<string, number>(chosen.map((id) => [id, 0]));
  const ackTimes = new Map<string, number[]>(chosen.map((id) => [id, []]));
  let writing = true;
  let n = 0;
  let fivexx = 0;
  let refused = 0;
  const writer = (async () => {
    while (writing) {
      const id = chosen[n % chosen.length] as string;
      const change = Math.floor(n / chosen.length) % 2 === 0 ? -1 : 1;
      const target = instances[n % 2] ? n % 2 : 1 - (n % 2);
      n++;
      sent.set(id, (sent.get(id) ?? 0) + 1);
      try {
        const res = await fetch(`${origin(target)}/api/admin/sessions/${id}/places`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ change }),
        });
        if (res.status === 200) {
          acked.set(id, (acked.get(id) ?? 0) + 1);
          ackTimes.get(id)?.push(Date.now());
        } else if (res.status === 503) refused++;
        else if (res.status >= 500) fivexx++;
        else console.log(`${at()}  change ${change} on ${id}: ${res.status}`);
        await res.arrayBuffer();
      } catch {
        refused++; // the instance went away under the request: its answer is lost, the change may have happened
      }
      await sleep(WRITE_EVERY_MS);
    }
  })();

  await sleep(5000);
  const calmUntil = Date.now();
  await stop(0, 'SIGKILL');
  await sleep(2000);
  await start(0);
  await sleep(3000);
  receiver.state.down = true;
  console.log(`${at()}  receiver answers 503`);
  await sleep(5000);
  await stop(1, 'SIGTERM');
  await sleep(2000);
  await start(1);
  await sleep(5000);
  receiver.state.down = false;
  console.log(`${at()}  receiver back`);
  await sleep(5000);
  writing = false;
  await writer;
  const totalAcked = [...acked.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${at()}  writes stopped: ${totalAcked} acknowledged of ${n} sent, ${refused} refused or cut, ${fivexx} 5xx`,
  );

  const receivedFor = (id: string) => [...receiver.state.received.values()].filter((r) => r.sessionId === id).length;
  const deadline = Date.now() + WAIT_FOR_QUEUE_S * 1000;
  while (Date.now() < deadline && chosen.some((id) => receivedFor(id) < (acked.get(id) ?? 0))) await sleep(500);
  console.log(`${at()}  queue waited for`);

  let ok = fivexx === 0 && receiver.state.bad === 0;
  for (const id of chosen) {
    const got = receivedFor(id);
    const order = receiver.state.order.get(id) ?? [];
    const inOrder = order.every((ts, i) => i === 0 || (order[i - 1] as string) <= ts);
    const complete = got >= (acked.get(id) ?? 0) && got <= (sent.get(id) ?? 0);
    if (!inOrder || !complete) ok = false;
    console.log(
      `session ${id}: ${acked.get(id)} acknowledged, ${sent.get(id)} sent, ${got} events received${inOrder ? ', in order' : ', OUT OF ORDER'}`,
    );
  }
  const all = [...receiver.state.received.values()];
  const duplicates = all.reduce((sum, r) => sum + r.times - 1, 0);
  console.log(
    `${all.length} distinct events, ${duplicates} delivered again (at least once), ${receiver.state.bad} bad signatures, ${fivexx} 5xx`,
  );
  // From the change's commit (the event's timestamp, same machine clock) to its receipt, while all was up.
  const delays = all
    .filter((r) => Date.parse(r.timestamp) < calmUntil)
    .map((r) => r.firstAt - Date.parse(r.timestamp))
    .sort((a, b) => a - b);
  const pick = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))];
  console.log(
    `delivery delay while all was up (${delays.length} events): p50 ${pick(0.5)} ms, p99 ${pick(0.99)} ms, max ${delays.at(-1)} ms`,
  );
  console.log(ok ? 'VERDICT: pass' : 'VERDICT: FAIL');

  await Promise.all([stop(0, 'SIGTERM'), stop(1, 'SIGTERM')]);
  receiver.server.close();
  await onServer(`drop database if exists ${NAME} with (force)`);
  process.exit(ok ? 0 : 1);
}

main().catch(async (err) => {
  console.error(err);
  for (const child of instances) child?.kill('SIGKILL');
  process.exit(1);
});
