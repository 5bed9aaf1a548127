/**
 * CPU per catalogue change on instances that do not write it themselves (notification, catch-up,
 * apply, change stream), for several builds side by side: one instance of each build in
 * CHANGE_COST_SERVICES (built checkouts, comma-separated; default this one), all on one PostgreSQL
 * database of their own (`scale_bench_change_cost`, created and dropped here), each following the
 * same changes at the same time — so a machine shared with other work loads them alike, and the
 * ratio between builds holds where absolute figures do not.
 *
 * Changes are price updates written straight to the database (each its own version, announced by
 * the log's trigger) at CHANGE_COST_RATE a second (default 50) for CHANGE_COST_SECONDS (default 10),
 * in CHANGE_COST_ROUNDS rounds (default 3) after a warm-up. With CHANGE_COST_VIA=patch, the changes are
 * PATCHes sent to the instances in turn instead (as bench:scale sends them): each instance then also
 * pays for the writes it makes. With CHANGE_COST_VIA=patch-one, each round sends CHANGE_COST_COUNT
 * PATCHes (default 500) to each build in turn, one at a time, as fast as they are answered: what one
 * PATCH costs its instance and PostgreSQL, and how long it takes, the builds alternated round by
 * round (the others only hear those changes meanwhile). CHANGE_COST_PROFILE=<dir>: each instance runs with --cpu-prof into <dir>/<n>. CHANGE_COST_NODE_ARGS: node options for every instance (space-separated). Each instance has one change stream open
 * (as bench:scale has). Prints each build's CPU per change, every round and the median, its instance's RSS at the end and at most, and PostgreSQL's
 * (every server process on this machine, whichever build's changes it served).
 *
 *   npx tsx bench/load/change-cost.ts    (CHANGE_COST_SCALE 10 for ten times the demo; ports 4861…)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { healthy, runOnServer } from '../support/instances.js';

const SERVICES = (process.env.CHANGE_COST_SERVICES ?? '.').split(',').map((d) => resolve(d));
const SCALE = Number(process.env.CHANGE_COST_SCALE ?? 1);
const RATE = Number(process.env.CHANGE_COST_RATE ?? 50);
const SECONDS = Number(process.env.CHANGE_COST_SECONDS ?? 10);
const ROUNDS = Number(process.env.CHANGE_COST_ROUNDS ?? 3);
const PROFILE = process.env.CHANGE_COST_PROFILE;
const NODE_ARGS = (process.env.CHANGE_COST_NODE_ARGS ?? '').split(' ').filter(Boolean);
const VIA = process.env.CHANGE_COST_VIA ?? 'sql';
const COUNT = Number(process.env.CHANGE_COST_COUNT ?? 500);
const ADMIN_URL = process.env.CHANGE_COST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BASE_PORT = Number(process.env.CHANGE_COST_PORT ?? 4861);
const NAME = 'scale_bench_change_cost';
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();
/** CPU time (user + system) of process `pid` so far, in ms (from /proc, at 100 ticks a second). */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) * 10;
};
/**
 * CPU time so far of each PostgreSQL server process on this machine (its backends, the WAL writer,
 * the checkpointer...), by pid: what the changes cost the server, all builds together.
 */
const postgresCpuMs = () => {
  const byPid = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
      byPid.set(Number(name), cpuMs(Number(name)));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
};
/** The CPU spent between two readings by the processes in both (one that ended or began between is left out). */
const spentBetween = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + (before.has(pid) ? ms - (before.get(pid) as number) : 0), 0);
/** The RSS of process `pid` now and the most it held (VmHWM), in MB. */
const memoryMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1] ?? Number.NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A change stream held open on `port`, its events read and dropped. */
function openStream(port: number): Promise<() => void> {
  return new Promise((ok, fail) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/stages/events', agent: false }, (res) => {
      res.on('data', () => {});
      ok(() => req.destroy());
    });
    req.on('error', fail);
  });
}

async function main(): Promise<void> {
  console.log(
    `change-cost — scale ${SCALE}, ${RATE} changes/s by ${VIA}, ${SECONDS} s × ${ROUNDS} rounds, builds ${SERVICES.join(', ')}, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  await runOnServer(ADMIN_URL, `drop database if exists ${NAME} with (force)`);
  await runOnServer(ADMIN_URL, `create database ${NAME}`);
  const database = await openDatabase({ kind: 'postgres', url });
  const children: ChildProcess[] = [];
  const closers: (() => void)[] = [];
  try {
    await database.migrate();
    await loadDemoCatalogue(database.db, { today: dateIn(new Date()), scale: SCALE });
    const picked = await database.db.execute(
      sql`select id::text as id from stage_sessions where status = 'scheduled' and day1 > current_date + 20 order by md5(id::text) limit 3000`,
    );
    const targets = (picked as unknown as { rows: { id: string }[] }).rows.map((r) => r.id);
    const { key } = await createApiKey(database.db, { name: 'bench', role: 'admin', centreId: null });
    const patch = async (port: number, id: string, cents: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/admin/sessions/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ priceEuros: cents / 100 }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
    };
    for (const [i, dir] of SERVICES.entries()) {
      const port = BASE_PORT + i;
      const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}/${i + 1}`] : [];
      const child = spawn(process.execPath, [...NODE_ARGS, ...profile, 'dist/server.js'], {
        cwd: dir,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          RATE_LIMIT: 'off',
          DATABASE_URL: url,
          DEMO_CATALOGUE: 'false',
          LOG_LEVEL: 'warn',
          LOG_SAMPLE_READS: '0',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      for (let n = 0; !(await healthy(`http://127.0.0.1:${port}`)); n++) {
        if (n > 3000 || child.exitCode !== null) throw new Error(`${dir} did not start`);
        await sleep(20);
      }
      closers.push(await openStream(port));
    }
    let n = 0;
    const changeFor = async (seconds: number) => {
      const begin = performance.now();
      const sent: Promise<unknown>[] = [];
      for (let k = 0; k < RATE * seconds; k++) {
        const wait = begin + (k * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        const i = n++;
        const id = targets[i % targets.length] as string;
        const cents = 15000 + (i % 9973);
        sent.push(
          VIA === 'patch'
            ? patch(BASE_PORT + (i % SERVICES.length), id, cents)
            : database.db.execute(sql`update stage_sessions set price_cents = ${cents} where id = ${id}::uuid`),
        );
      }
      await Promise.all(sent);
      return RATE * seconds;
    };
    const pids = children.map((c) => c.pid as number);
    if (VIA === 'patch-one') {
      await patchOneAtATime(pids, (i) =>
        patch(BASE_PORT + i, targets[n % targets.length] as string, 15000 + (n++ % 9973)),
      );
      return;
    }
    await changeFor(3); // warm-up
    const perChange: number[][] = SERVICES.map(() => []);
    const postgresPerChange: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await sleep(1000);
      const before = pids.map(cpuMs);
      const postgresBefore = postgresCpuMs();
      const count = await changeFor(SECONDS);
      await sleep(1000); // the last catch-ups
      const after = pids.map(cpuMs);
      postgresPerChange.push((spentBetween(postgresBefore, postgresCpuMs()) / count) * 1000);
      for (const i of pids.keys()) perChange[i]?.push((((after[i] as number) - (before[i] as number)) / count) * 1000);
    }
    console.log(
      `load average after ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    for (const [i, dir] of SERVICES.entries()) {
      const xs = perChange[i] as number[];
      const { rss, peak } = memoryMb(pids[i] as number);
      console.log(
        `${dir}: CPU per change ${median(xs).toFixed(0)} µs (rounds ${xs.map((x) => x.toFixed(0)).join(', ')}; idle seconds around each round included); RSS ${rss} MB, at most ${peak} MB`,
      );
    }
    console.log(
      `PostgreSQL, every server process, all builds together: CPU per change ${median(postgresPerChange).toFixed(0)} µs (rounds ${postgresPerChange.map((x) => x.toFixed(0)).join(', ')})`,
    );
  } finally {
    for (const close of closers) close();
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    await database.close();
    await runOnServer(ADMIN_URL, `drop database if exists ${NAME} with (force)`);
  }
}

/**
 * CHANGE_COST_VIA=patch-one: COUNT PATCHes one at a time to each build in turn, ROUNDS times; prints
 * each build's CPU per PATCH (its instance, PostgreSQL's server processes) and latency, by round.
 */
async function patchOneAtATime(pids: number[], patchTo: (i: number) => Promise<void>): Promise<void> {
  const send = async (i: number, count: number) => {
    const took: number[] = [];
    for (let k = 0; k < count; k++) {
      const begin = performance.now();
      await patchTo(i);
      took.push(performance.now() - begin);
    }
    return took.sort((a, b) => a - b);
  };
  for (const i of pids.keys()) await send(i, 200); // warm-up
  const rounds: string[][] = pids.map(() => []);
  const figures: { instance: number[]; postgres: number[]; p50: number[] }[] = pids.map(() => ({
    instance: [],
    postgres: [],
    p50: [],
  }));
  for (let r = 0; r < ROUNDS; r++)
    for (const [i, pid] of pids.entries()) {
      await sleep(500);
      const before = cpuMs(pid);
      const postgresBefore = postgresCpuMs();
      const took = await send(i, COUNT);
      await sleep(200); // its last announcement heard by the others
      const instance = ((cpuMs(pid) - before) / COUNT) * 1000;
      const postgres = (spentBetween(postgresBefore, postgresCpuMs()) / COUNT) * 1000;
      const p50 = took[Math.floor(COUNT / 2)] as number;
      const f = figures[i] as { instance: number[]; postgres: number[]; p50: number[] };
      f.instance.push(instance);
      f.postgres.push(postgres);
      f.p50.push(p50);
      rounds[i]?.push(`${instance.toFixed(0)}/${postgres.toFixed(0)} µs ${p50.toFixed(2)} ms`);
    }
  const first = figures[0] as { instance: number[]; postgres: number[]; p50: number[] };
  // The machine's speed drifts over a run: a build's rounds compare best with the first build's same rounds.
  const against = (xs: number[], ys: number[]) => median(xs.map((x, r) => x - (ys[r] as number)));
  for (const [i, dir] of SERVICES.entries()) {
    const f = figures[i] as { instance: number[]; postgres: number[]; p50: number[] };
    if (i > 0)
      console.log(
        `${dir} against ${SERVICES[0]}, median of the rounds' differences: its instance ${against(f.instance, first.instance).toFixed(0)} µs, PostgreSQL ${against(f.postgres, first.postgres).toFixed(0)} µs, p50 ${against(f.p50, first.p50).toFixed(2)} ms`,
      );
    console.log(
      `${dir}: one PATCH at a time, CPU of its instance ${median(f.instance).toFixed(0)} µs, of PostgreSQL ${median(f.postgres).toFixed(0)} µs, p50 ${median(f.p50).toFixed(2)} ms (medians; rounds, instance/PostgreSQL and p50: ${rounds[i]?.join(', ')})`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
