/**
 * npm run bench:scale — a moving catalogue on several compiled instances over one PostgreSQL database
 * of its own (`stages_bench_scale` on the machine's server, created and dropped here).
 *
 * Options (environment):
 *   SCALE_FACTOR          1 or 10: the demo catalogue, or ten times it (~14,000 centres, ~200,000 sessions)
 *   SCALE_INSTANCES       instances (default 3), ports 4741…
 *   SCALE_CHANGES_PER_S   price changes a second, PATCHes sent round-robin to the instances (default 50)
 *   SCALE_READ_MIX        the reads on instance 1: a query string (default `dept=75&limit=20`), several
 *                         separated by `|`, or `varied` (6,000 distinct searches, bench/load/varied-queries.ts)
 *   SCALE_CONNECTIONS     read connections (default 16)
 *   SCALE_DURATION        seconds per read run (default 10); SCALE_ROUNDS still/changing pairs (default 2)
 *   SCALE_SUBSCRIBERS     change-stream subscribers on one instance (default 10000; 0 skips), which is
 *                         also that instance's cap (EVENTS_MAX_STREAMS): one more must be refused
 *   SCALE_CPU_PROFILE     a directory: instance 1 runs with --cpu-prof there
 *   SCALE_NODE_ARGS       node's options for every instance, space-separated (default: `npm start`'s, from
 *                         package.json, with its MALLOC_ARENA_MAX)
 *   SCALE_PHASES          `all` (default), or `subscribers` for the start and the subscribers alone
 *   SCALE_ADMIN_URL       default postgres://postgres@127.0.0.1:5432/postgres
 *   SCALE_SERVICE_DIR     the built checkout to measure (default this one), to compare with another build
 *
 * Prints: start to healthy and RSS per instance; propagation from each write's acknowledgement until
 * every instance's change stream carries it; write latency and read throughput on instance 1 while
 * reads saturate it, against a still catalogue (interleaved rounds); latencies at 70 % of the still
 * maximum; the subscribers' delay, the memory they cost, and the answer to one more.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer, startOptions } from '../support/instances.js';
import type { ReadFigures, ReadJob } from './scale-reader.js';
import { variedQueries } from './varied-queries.js';

const SCALE = Number(process.env.SCALE_FACTOR ?? 1);
const INSTANCES = Number(process.env.SCALE_INSTANCES ?? 3);
const RATE = Number(process.env.SCALE_CHANGES_PER_S ?? 50);
const MIX = process.env.SCALE_READ_MIX ?? 'dept=75&limit=20';
const CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 16);
const DURATION = Number(process.env.SCALE_DURATION ?? 10);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 2);
const SUBSCRIBERS = Number(process.env.SCALE_SUBSCRIBERS ?? 10_000);
const PROFILE_DIR = process.env.SCALE_CPU_PROFILE;
const PHASES = process.env.SCALE_PHASES ?? 'all';
const ADMIN_URL = process.env.SCALE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVICE_DIR = resolve(process.env.SCALE_SERVICE_DIR ?? '.');
const SERVICE_START = startOptions(SERVICE_DIR);
const NODE_ARGS =
  process.env.SCALE_NODE_ARGS === undefined
    ? SERVICE_START.nodeArgs
    : process.env.SCALE_NODE_ARGS.split(' ').filter((arg) => arg !== '');
const NAME = 'stages_bench_scale';
const BASE_PORT = 4741;
const CLK_TCK = 100;

const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();
const port = (i: number) => BASE_PORT + i;
/** Each instance's metrics listener (METRICS_PORT): GC and event-loop figures per phase. */
const metricsPort = (i: number) => BASE_PORT + 50 + i;

const onServer = (statement: string) => runOnServer(ADMIN_URL, statement);

const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
};
const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');
const dist = (xs: number[]) => `p50 ${f0(q(xs, 0.5))} ms, p99 ${f0(q(xs, 0.99))} ms, max ${f0(q(xs, 1))} ms`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The machine's idle time so far, all cores summed, in ms (/proc/stat, 100 ticks a second). */
const machineIdleMs = () => Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/)[4]) * 10;

async function healthy(p: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${p}/api/health`).then(
    (r) => r.ok,
    () => false,
  );
}

async function start(i: number): Promise<{ child: ChildProcess; startMs: number }> {
  const started = performance.now();
  const profile = PROFILE_DIR && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...NODE_ARGS, ...profile, 'dist/server.js'], {
    cwd: SERVICE_DIR,
    env: {
      ...process.env,
      ...SERVICE_START.env,
      PORT: String(port(i)),
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl,
      DEMO_CATALOGUE: 'false',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port(i)}`,
      METRICS_PORT: String(metricsPort(i)),
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
      LOG_SAMPLE_READS: '0',
      EVENTS_MAX_STREAMS: String(Math.max(SUBSCRIBERS, 100)),
      EVENTS_MAX_PER_ADDRESS: '10',
      EVENTS_TOTAL_BUFFER_MB: '512',
      MAX_CONNECTIONS: String(SUBSCRIBERS + 1000),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let n = 0; !(await healthy(port(i))); n++) {
    if (n > 2400 || child.exitCode !== null) throw new Error(`instance ${i + 1} did not start`);
    await sleep(20);
  }
  return { child, startMs: performance.now() - started };
}

/** What an instance's metrics say of its collector and event loop (the loop's figures since the last scrape). */
interface Runtime {
  majorGcs: number;
  majorGcMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

async function runtime(i: number): Promise<Runtime> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort(i)}/metrics`)).text();
  const lines = text.split('\n');
  const value = (key: string) => Number(lines.find((l) => l.startsWith(`${key} `))?.slice(key.length + 1) ?? 0);
  return {
    majorGcs: value('nodejs_gc_duration_seconds_count{kind="major"}'),
    majorGcMs: value('nodejs_gc_duration_seconds_sum{kind="major"}') * 1000,
    loopP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    loopMaxMs: value('nodejs_eventloop_lag_max_seconds') * 1000,
  };
}

/**
 * Each instance's full (mark-compact) collections between two scrapes and their final pauses (the
 * incremental marking before each is not in the metric; the event loop's delay shows it), and its
 * event-loop delay meanwhile (the later scrape's p99 and max: the service's metrics reset the
 * loop's histogram at each scrape). A phase short enough to hold no full collection says little of
 * the write latency a longer one will see.
 */
function runtimeLine(before: Runtime[], after: Runtime[]): string {
  return `  each instance meanwhile: ${after
    .map((a, i) => {
      const b = before[i] as Runtime;
      return `${a.majorGcs - b.majorGcs} full GCs (pauses ${f0(a.majorGcMs - b.majorGcMs)} ms), loop delay p99 ${f0(a.loopP99Ms)} ms max ${f0(a.loopMaxMs)} ms`;
    })
    .join('; ')}`;
}

const runtimes = () => Promise.all(Array.from({ length: INSTANCES }, (_, i) => runtime(i)));

/** A change stream read from `localAddress`: `onSession(id, price)` at each session event's arrival. */
function subscribe(
  p: number,
  localAddress: string,
  onSession: (key: string) => void,
): Promise<{ status: number; body: string; close: () => void }> {
  return new Promise((resolveOpen, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: p, path: '/api/stages/events', localAddress, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.setEncoding('utf8').on('data', (c) => (body += c));
          res.on('end', () => resolveOpen({ status: res.statusCode ?? 0, body, close: () => {} }));
          return;
        }
        let buffer = '';
        let ready = false;
        res.setEncoding('utf8').on('data', (chunk: string) => {
          buffer += chunk;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const event = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (!ready && event.includes('event: ready')) {
              ready = true;
              resolveOpen({ status: 200, body: '', close: () => req.destroy() });
            }
            const data = /(?:^|\n)data: (\{"id".*)/.exec(event)?.[1];
            if (data) {
              const e = JSON.parse(data) as { id: string; priceEuros: number };
              onSession(`${e.id} ${e.priceEuros}`);
            }
            cut = buffer.indexOf('\n\n');
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', reject);
  });
}

/** `subscribe`, tried again (up to three times) when a connection is reset while the machine is loaded. */
async function subscribeRetrying(...args: Parameters<typeof subscribe>): ReturnType<typeof subscribe> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await subscribe(...args);
    } catch (err) {
      if (attempt >= 3) throw err;
      resets++;
      await sleep(100 * attempt);
    }
  }
}
let resets = 0;

function read(job: ReadJob): Promise<ReadFigures> {
  const child = fork(resolve('bench/load/scale-reader.ts'), { execArgv: ['--import', 'tsx'] });
  return new Promise((ok, fail) => {
    child.once('message', (m) => ok(m as ReadFigures));
    child.once('exit', (code) => (code ? fail(new Error(`reader exited ${code}`)) : undefined));
    child.send(job);
  });
}

/** Instance 1's CPU during a read run and the machine's idle time, in % of one core. */
interface Busy {
  instancePercent: number;
  idlePercent: number;
}
type RunFigures = ReadFigures & Busy;

interface Write {
  key: string;
  instance: number;
  sentAt: number;
  ackAt?: number;
  status?: number;
}

async function main(): Promise<void> {
  console.log(
    `bench:scale — scale ${SCALE}, ${INSTANCES} instances, ${RATE} changes/s, reads "${MIX}" at ${CONNECTIONS} connections, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  await onServer(`drop database if exists ${NAME} with (force)`);
  await onServer(`create database ${NAME}`);
  const database = await openDatabase({ kind: 'postgres', url: dbUrl });
  const children: ChildProcess[] = [];
  try {
    await database.migrate();
    const today = dateIn(new Date());
    let t0 = performance.now();
    const loaded = await loadDemoCatalogue(database.db, { today, scale: SCALE });
    console.log(
      `catalogue: ${loaded.centres} centres, ${loaded.sessions} sessions, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const { key } = await createApiKey(database.db, { name: 'bench', role: 'admin', centreId: null });
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // Sessions all over France, far enough ahead that any change is allowed.
    const picked = await database.db.execute(
      sql`select s.id::text as id from stage_sessions s where s.status = 'scheduled' and s.day1 > current_date + 20 order by md5(s.id::text) limit 3000`,
    );
    const targets = (picked as unknown as { rows: { id: string }[] }).rows.map((r) => r.id);
    await database.close();

    // Start to healthy, RSS.
    const started: { child: ChildProcess; startMs: number }[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      const s = await start(i);
      started.push(s);
      children.push(s.child);
    }
    await sleep(5000);
    for (const [i, s] of started.entries())
      console.log(
        `instance ${i + 1}: start to healthy (catalogue stored) ${f0(s.startMs)} ms, RSS of node ${f0(rssMB(s.child.pid as number))} MB 5 s later`,
      );
    const pids = started.map((s) => s.child.pid as number);

    // Writes and what every instance's stream shows of them.
    const writes = new Map<string, Write>();
    const seen = new Map<string, number[]>(); // key → arrival per instance
    const streams = await Promise.all(
      Array.from({ length: INSTANCES }, (_, i) =>
        subscribe(port(i), '127.0.0.1', (k) => {
          const at = seen.get(k) ?? [];
          at[i] ??= performance.now();
          seen.set(k, at);
        }),
      ),
    );
    // node:http over kept-alive connections rather than fetch: the writer shares the machine with what
    // it measures, and with fetch this bench spent 2.5 ms of CPU a change, 1.3–1.5 ms so (its own line).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const patch = (p: number, path: string, body: string) =>
      new Promise<number>((done, fail) => {
        const headers = { ...auth, 'content-length': String(Buffer.byteLength(body)) };
        const req = http.request({ host: '127.0.0.1', port: p, path, method: 'PATCH', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end(body);
      });
    let n = 0;
    const write = async (instance = n % INSTANCES): Promise<Write> => {
      const i = n++;
      const id = targets[i % targets.length] as string;
      // Whole cents over 100, the double the service's priceEuros prints back: 150 + 1608 / 100 would
      // be 166.07999999999998, stored and sent as 166.08, and its write counted unseen.
      const price = (15000 + (i % 9973)) / 100;
      const w: Write = { key: `${id} ${price}`, instance, sentAt: performance.now() };
      writes.set(w.key, w);
      w.status = await patch(port(instance), `/api/admin/sessions/${id}`, JSON.stringify({ priceEuros: price }));
      w.ackAt = performance.now();
      return w;
    };
    /** Writes at RATE a second (open loop: one is sent on time whatever the others are doing) for `seconds`. */
    const writeFor = async (seconds: number): Promise<Write[]> => {
      const sent: Promise<Write>[] = [];
      const begin = performance.now();
      for (let k = 0; k < RATE * seconds; k++) {
        const due = begin + (k * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        sent.push(write());
      }
      return Promise.all(sent);
    };
    const propagation = async (ws: Write[]) => {
      await sleep(1000);
      const delays: number[] = [];
      let missing = 0;
      for (const w of ws) {
        const at = seen.get(w.key);
        if (w.status !== 200 || !at || at.filter((x) => x !== undefined).length < INSTANCES) {
          missing++;
          continue;
        }
        delays.push(Math.max(0, Math.max(...at) - (w.ackAt as number)));
      }
      return { delays, missing };
    };
    const latencies = (ws: Write[], instance?: number) =>
      ws.filter((w) => instance === undefined || w.instance === instance).map((w) => (w.ackAt as number) - w.sentAt);
    const statuses = (ws: Write[]) => {
      const c: Record<string, number> = {};
      for (const w of ws) c[String(w.status)] = (c[String(w.status)] ?? 0) + 1;
      return JSON.stringify(c);
    };

    if (PHASES !== 'subscribers') {
      // 0. One write at a time: what a write costs with nothing queued before it.
      await writeFor(2); // warm-up
      const serial: Write[] = [];
      for (let k = 0; k < 60; k++) serial.push(await write());
      console.log(`\none write at a time (${serial.length}, round-robin): acknowledged ${dist(latencies(serial))}`);

      // 1. Changes alone: propagation, and the CPU each instance spends per change.
      const cpu0 = pids.map(cpuMs);
      const rt0 = await runtimes();
      const own0 = process.cpuUsage();
      const alone = await writeFor(DURATION);
      const own1 = process.cpuUsage(own0);
      const rt1 = await runtimes();
      const cpu1 = pids.map(cpuMs);
      const p1 = await propagation(alone);
      console.log(`\nchanges alone, ${alone.length} PATCHes (${statuses(alone)}):`);
      console.log(
        `  seen in every instance's stream, from the write's acknowledgement: ${dist(p1.delays)} (${p1.missing} unseen)`,
      );
      console.log(`  write acknowledged: ${dist(latencies(alone))}`);
      console.log(
        `  CPU per change, each instance (notification, catch-up, apply, stream; its own writes included): ${pids
          .map((_, i) => `${f0((((cpu1[i] as number) - (cpu0[i] as number)) / alone.length) * 1000)} µs`)
          .join(', ')}`,
      );
      console.log(runtimeLine(rt0, rt1));
      console.log(
        `  this bench's own CPU per change (its writer and the streams it reads): ${f0((own1.user + own1.system) / alone.length)} µs`,
      );

      // 2. Reads saturating instance 1, still and under changes, interleaved.
      const paths =
        MIX === 'varied' ? variedQueries(6000, today).map((x) => x) : MIX.split('|').map((m) => `/api/stages?${m}`);
      const job: ReadJob = { url: `http://127.0.0.1:${port(0)}`, paths, connections: CONNECTIONS, duration: DURATION };
      await read({ ...job, duration: 3 }); // warm-up
      const still: RunFigures[] = [];
      const moving: { reads: RunFigures; writes: Write[]; runtime: string }[] = [];
      // Whether instance 1 or its reader is the bottleneck: instance 1's CPU over a run, in % of a core,
      // and the machine's idle time (the reader says its own).
      const busyDuring = async <T>(run: () => Promise<T>): Promise<[T, Busy]> => {
        const [c0, t0, i0] = [cpuMs(pids[0] as number), performance.now(), machineIdleMs()];
        const out = await run();
        const ms = performance.now() - t0;
        return [
          out,
          {
            instancePercent: ((cpuMs(pids[0] as number) - c0) / ms) * 100,
            idlePercent: ((machineIdleMs() - i0) / ms) * 100,
          },
        ];
      };
      for (let r = 0; r < ROUNDS; r++) {
        const [s, stillBusy] = await busyDuring(() => read(job));
        still.push({ ...s, ...stillBusy });
        const before = await runtimes();
        const [[reads, ws], movingBusy] = await busyDuring(() => Promise.all([read(job), writeFor(DURATION)]));
        moving.push({ reads: { ...reads, ...movingBusy }, writes: ws, runtime: runtimeLine(before, await runtimes()) });
      }
      const line = (what: string, r: ReadFigures & Partial<Busy>) =>
        `  ${what.padEnd(30)} ${f0(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  non-2xx ${r.non2xx}  errors ${r.errors}${
          r.instancePercent === undefined
            ? ''
            : `  CPU: instance 1 ${f0(r.instancePercent)} %, reader ${f0(r.cpuPercent)} %, the machine idle ${f0(r.idlePercent ?? Number.NaN)} %`
        }`;
      console.log(
        `\nreads saturating instance 1 (${paths.length} distinct paths, ${CONNECTIONS} connections, ${DURATION} s):`,
      );
      for (const [r, s] of still.entries()) console.log(line(`still, round ${r + 1}`, s));
      for (const [r, m] of moving.entries())
        console.log(`${line(`${RATE} changes/s, round ${r + 1}`, m.reads)}\n${m.runtime}`);
      const sum = (rs: ReadFigures[]) => rs.reduce((a, r) => a + r.rps, 0);
      console.log(`  throughput under changes / still: ${(sum(moving.map((m) => m.reads)) / sum(still)).toFixed(2)}`);
      const movingWrites = moving.flatMap((m) => m.writes);
      const p2 = await propagation(movingWrites);
      console.log(`  writes (${statuses(movingWrites)}): all ${dist(latencies(movingWrites))}`);
      console.log(`    to the saturated instance: ${dist(latencies(movingWrites, 0))}`);
      console.log(`  seen in every instance's stream: ${dist(p2.delays)} (${p2.missing} unseen)`);

      // 3. 70 % of the still maximum, under changes.
      const rate = Math.round(0.7 * (sum(still) / still.length));
      const rt70 = await runtimes();
      const [at70, w70] = await Promise.all([read({ ...job, rate }), writeFor(DURATION)]);
      const runtime70 = runtimeLine(rt70, await runtimes());
      const p3 = await propagation(w70);
      console.log(`\nreads at a fixed ${rate} req/s (70 % of the still maximum) under ${RATE} changes/s:`);
      console.log(line('reads', at70));
      console.log(`  writes: all ${dist(latencies(w70))}; to that instance ${dist(latencies(w70, 0))}`);
      console.log(runtime70);
      console.log(`  seen in every instance's stream: ${dist(p3.delays)} (${p3.missing} unseen)`);
    }
    for (const s of streams) s.close();

    // 4. Subscribers on instance 2 (instance 1 when alone), the cap, and one more.
    if (SUBSCRIBERS > 0) {
      const target = Math.min(1, INSTANCES - 1);
      const pid = pids[target] as number;
      await sleep(500);
      const before = rssMB(pid);
      const arrivals = new Map<string, number[]>();
      const open: { close: () => void }[] = [];
      t0 = performance.now();
      for (let k = 0; k < SUBSCRIBERS; k += 100) {
        const batch = Array.from({ length: Math.min(100, SUBSCRIBERS - k) }, (_, j) => {
          const x = k + j;
          return subscribeRetrying(port(target), `127.${1 + (x >> 16)}.${(x >> 8) & 255}.${x & 255 || 1}`, (key) => {
            const list = arrivals.get(key) ?? [];
            list.push(performance.now());
            arrivals.set(key, list);
          });
        });
        for (const s of await Promise.all(batch)) {
          if (s.status !== 200) throw new Error(`subscriber refused before the cap: ${s.status} ${s.body}`);
          open.push(s);
        }
      }
      const openMs = performance.now() - t0;
      await sleep(2000);
      const after = rssMB(pid);
      const extra = await subscribe(port(target), '127.250.0.1', () => {});
      // Changes sent to the other instances (or to it when alone), one every 200 ms.
      const ws: Write[] = [];
      for (let k = 0; k < 20; k++) {
        ws.push(await write(INSTANCES > 1 ? (target + 1 + (k % (INSTANCES - 1))) % INSTANCES : 0));
        await sleep(200);
      }
      await sleep(3000);
      const delays: number[] = [];
      let short = 0;
      for (const w of ws) {
        const list = arrivals.get(w.key) ?? [];
        short += SUBSCRIBERS - list.length;
        for (const at of list) delays.push(Math.max(0, at - (w.ackAt as number)));
      }
      const rssWith = rssMB(pid);
      for (const s of open) s.close();
      console.log(
        `\n${SUBSCRIBERS} change-stream subscribers on instance ${target + 1} (over 127.0.0.0/8; opened in ${f0(openMs)} ms, ${resets} connections reset and tried again):`,
      );
      console.log(
        `  RSS ${f0(before)} → ${f0(after)} MB (+${f0(after - before)} MB) open, ${f0(rssWith)} MB after 20 changes`,
      );
      console.log(
        `  20 changes, from the write's acknowledgement to each subscriber: ${dist(delays)} (${short} deliveries missing)`,
      );
      console.log(`  subscriber ${SUBSCRIBERS + 1}, past the cap: ${extra.status} ${extra.body.slice(0, 200)}`);
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    await onServer(`drop database if exists ${NAME} with (force)`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
