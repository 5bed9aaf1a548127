/**
 * Changes on a live catalogue: two compiled instances on one PostgreSQL database, a writer on the
 * first, and what the second sees.
 *
 *   npm run bench:changes            (CHANGES_SCALE=10 for ten times the demo, ~200,000 sessions)
 *
 * 1. Start-up: each instance's time to healthy (a full build of the read model).
 * 2. Propagation: CHANGES_COUNT (default 200) place changes sent to instance A, each timed from the
 *    request until instance B's change stream (GET /api/stages/events) carries it; p50/p99/max.
 * 3. CPU per change on instance B (from /proc, idle otherwise): what applying one change costs.
 * 4. Throughput on instance B under load (CHANGES_CONNECTIONS, default 20; varied queries, most of
 *    them cache misses), still and then with one change every 500 ms sent to A: req/s, p99, max.
 * 5. A full rebuild on B while loaded (the change log pruned under it): its time, and the max latency
 *    requests saw meanwhile.
 *
 * Needs PostgreSQL (CHANGES_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres); it
 * creates and drops a database of its own. Run `npm run build` first (the script does).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer } from '../support/instances.js';
import { variedQueries } from './varied-queries.js';

const SCALE = Number(process.env.CHANGES_SCALE ?? 1);
const COUNT = Number(process.env.CHANGES_COUNT ?? 200);
const CONNECTIONS = Number(process.env.CHANGES_CONNECTIONS ?? 20);
const DURATION = Number(process.env.CHANGES_DURATION ?? 10);
const ADMIN_URL = process.env.CHANGES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = 'stages_bench_changes';
const PORTS = [4711, 4712] as const;
const CLK_TCK = 100;

const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${NAME}`;
  return u.toString();
})();

const admin = (statement: string) => runOnServer(ADMIN_URL, statement);

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function start(port: number): Promise<{ child: ChildProcess; startMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl,
      DEMO_CATALOGUE: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
      LOG_SAMPLE_READS: '0',
      EVENTS_MAX_PER_ADDRESS: '100',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 1200) throw new Error(`instance on ${port} did not start`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, startMs: performance.now() - started };
}

/** Session events of instance B's change stream, as they arrive. */
async function watch(port: number, onEvent: (id: string, version: number) => void): Promise<AbortController> {
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/api/stages/events`, { signal: controller.signal });
  void (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const data = /\ndata: (.*)/.exec(`\n${buffer.slice(0, cut)}`)?.[1];
          buffer = buffer.slice(cut + 2);
          if (data?.startsWith('{"id"')) {
            const e = JSON.parse(data) as { id: string; version: number };
            onEvent(e.id, e.version);
          }
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return controller;
}

async function load(port: number, paths: string[], duration = DURATION) {
  let next = 0;
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] as string }) }],
  });
  return { rps: r.requests.average, p99: r.latency.p99, max: r.latency.max, non2xx: r.non2xx, errors: r.errors };
}

async function main(): Promise<void> {
  await admin(`drop database if exists ${NAME} with (force)`);
  await admin(`create database ${NAME}`);
  const database = await openDatabase({ kind: 'postgres', url: dbUrl });
  const children: ChildProcess[] = [];
  try {
    await database.migrate();
    const today = dateIn(new Date());
    let t0 = performance.now();
    const loaded = await loadDemoCatalogue(database.db, { today, scale: SCALE });
    console.log(
      `catalogue: ${loaded.centres} centres, ${loaded.sessions} sessions (scale ${SCALE}), loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const { key } = await createApiKey(database.db, { name: 'bench', role: 'admin', centreId: null });
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const picked = await database.db.execute(
      sql`select id::text as id from stage_sessions where spots_available between 5 and 15 order by id limit 500`,
    );
    const ids = (picked as unknown as { rows: { id: string }[] }).rows;

    const a = await start(PORTS[0]);
    const b = await start(PORTS[1]);
    children.push(a.child, b.child);
    console.log(`start to healthy (full build of the read model): A ${ms(a.startMs)}, B ${ms(b.startMs)}`);

    // 2. Propagation.
    const waiting = new Map<string, (version: number) => void>();
    const stream = await watch(PORTS[1], (id, version) => waiting.get(id)?.(version));
    await new Promise((r) => setTimeout(r, 200));
    const delays: number[] = [];
    const cpuBefore = cpuMs(b.child.pid as number);
    for (let i = 0; i < COUNT; i++) {
      // Each session takes a place, then gives it back.
      const id = ids[Math.floor(i / 2) % ids.length]?.id as string;
      const seen = new Promise<void>((resolve) => waiting.set(id, () => resolve()));
      const sent = performance.now();
      const res = await fetch(`http://127.0.0.1:${PORTS[0]}/api/admin/sessions/${id}/places`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ change: i % 2 ? 1 : -1 }),
      });
      if (!res.ok) throw new Error(`change ${i}: ${res.status} ${await res.text()}`);
      await seen;
      delays.push(performance.now() - sent);
      waiting.delete(id);
    }
    const cpuPerChange = (cpuMs(b.child.pid as number) - cpuBefore) / COUNT;
    stream.abort();
    console.log(
      `propagation A → B's change stream over ${COUNT} changes: p50 ${ms(quantile(delays, 0.5))}, p99 ${ms(quantile(delays, 0.99))}, max ${ms(Math.max(...delays))}`,
    );
    console.log(
      `CPU on B per change applied (notification — with the change, or then a catch-up query —, apply, stream event): ${ms(cpuPerChange)}`,
    );

    // 4. Throughput, still and changing.
    const paths = variedQueries(6000, today);
    await load(PORTS[1], paths, 3); // warm-up
    let sent = 0;
    const changingLoad = async () => {
      let stop = false;
      const writer = (async () => {
        while (!stop) {
          const id = ids[Math.floor(sent / 2) % ids.length]?.id as string;
          await fetch(`http://127.0.0.1:${PORTS[0]}/api/admin/sessions/${id}/places`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ change: sent % 2 ? 1 : -1 }),
          });
          sent++;
          await new Promise((r) => setTimeout(r, 500));
        }
      })();
      const r = await load(PORTS[1], paths);
      stop = true;
      await writer;
      return r;
    };
    // Alternated, so that warming up and the machine's other work weigh on both alike.
    const still: Awaited<ReturnType<typeof load>>[] = [];
    const changing: Awaited<ReturnType<typeof load>>[] = [];
    for (let round = 0; round < 2; round++) {
      still.push(await load(PORTS[1], paths));
      changing.push(await changingLoad());
    }
    const line = (what: string, r: Awaited<ReturnType<typeof load>>) =>
      `${what.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99} ms  max ${r.max} ms  non-2xx ${r.non2xx}  errors ${r.errors}`;
    console.log(`\nload on B: ${CONNECTIONS} connections, ${DURATION} s, 6,000 distinct queries in turn`);
    for (const [i, r] of still.entries()) console.log(line(`still catalogue, round ${i + 1}`, r));
    for (const [i, r] of changing.entries()) console.log(line(`a change every 500 ms, round ${i + 1}`, r));
    const total = (rs: typeof still) => rs.reduce((a, r) => a + r.rps, 0);
    console.log(
      `throughput with changes / still (both rounds): ${(total(changing) / total(still)).toFixed(3)} (${sent} changes sent)`,
    );

    // 5. A full rebuild under load: a change whose log rows are gone makes B rebuild whole.
    const rebuild = load(PORTS[1], paths, 6);
    await new Promise((r) => setTimeout(r, 2000));
    t0 = performance.now();
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`update stage_sessions set price_cents = price_cents + 100 where id = ${ids[0]?.id}::uuid`);
      await tx.execute(sql`delete from catalogue_changes where version = (select version from catalogue_state)`);
    });
    const state = await database.db.execute(sql`select version from catalogue_state`);
    const version = Number((state as unknown as { rows: { version: number }[] }).rows[0]?.version);
    for (;;) {
      const health = (await (await fetch(`http://127.0.0.1:${PORTS[1]}/api/health`)).json()) as {
        catalogue: { version: number };
      };
      if (health.catalogue.version >= version) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const rebuildMs = performance.now() - t0;
    const during = await rebuild;
    console.log(`\nfull rebuild on B (log gap), under the same load: visible after ${ms(rebuildMs)}`);
    console.log(line('load during the rebuild (6 s)', during));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    await database.close();
    await admin(`drop database if exists ${NAME} with (force)`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
