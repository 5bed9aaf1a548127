/**
 * npx tsx bench/drills/big-import.ts — imports too big, too bad or merely large, against the compiled
 * service on its embedded database, while /api/health is polled every 20 ms.
 *
 * Phases, each on a freshly started instance (the same data directory, reopened):
 *   zeros-16m       32 MB of `[0,0,…]`: 16,777,000 records, under IMPORT_MAX_MB
 *   zeros-5mb       5 MB of the same: 2.6 million records
 *   bad-ndjson-200k 200,000 NDJSON lines that are not JSON (400 KB)
 *   bad-ndjson-20k  20,000 such lines (within the default IMPORT_MAX_RECORDS)
 *   valid-5000      5,000 valid sessions on the demo's centres, written
 *   valid-20000     20,000 valid sessions (the default IMPORT_MAX_RECORDS), written
 * For each: the answer (status, code, size, time), the slowest health answer while it ran, and the
 * server's RSS before, at its peak (VmHWM), 3 s and 10 s after the answer, and for the written
 * phases that of a fresh instance on the same data. Verdict (exit 1 on failure): health answered
 * 200 within 100 ms throughout every phase, the oversized bodies refused with 413, refusals under
 * 20 KB, the valid files written, RSS 10 s after within 150 MB of before (of the fresh instance,
 * when that is more: the read model holds what was written).
 * The machine's load average is printed: on a shared machine, health latency includes the time the
 * server waits for a core.
 *
 * Options: DRILL_SERVICE_DIR (another checkout to drill, e.g. /work/main for the previous build;
 * default this one; it must be built), DRILL_PHASES (comma-separated names), DRILL_PORT (4595),
 * DRILL_NODE_ARGS (flags for the service's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { publicHolidays } from '../../src/catalogue/demo/holidays.js';

const SERVICE_DIR = resolve(process.env.DRILL_SERVICE_DIR ?? '.');
const PORT = Number(process.env.DRILL_PORT ?? 4595);
const BASE = `http://127.0.0.1:${PORT}`;
const DATA_DIR = mkdtempSync(join(tmpdir(), 'stages-big-import-'));
const env = { ...process.env, DATA_DIR, HOST: '127.0.0.1', PORT: String(PORT), LOG_LEVEL: 'error', RATE_LIMIT: 'off' };
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cli = async (...args: string[]) =>
  (await run(process.execPath, ['dist/cli/index.js', ...args], { cwd: SERVICE_DIR, env, maxBuffer: 1 << 30 })).stdout;

/** VmRSS and VmHWM of a process, in MB; undefined once it has exited. */
function memory(pid: number): { rss: number; peak: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** A child killed by a signal (out of memory) has no exit code, only a signal code. */
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function startServer() {
  const nodeArgs = process.env.DRILL_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, 'dist/server.js'], {
    cwd: SERVICE_DIR,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  for (let i = 0; i < 1200; i++) {
    const ok = await fetch(`${BASE}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, stderr: () => stderr };
    if (!running(child)) throw new Error(`the service exited: ${stderr}`);
    await sleep(25);
  }
  throw new Error('the service did not become healthy');
}

/** Polls /api/health one request after the other, 20 ms apart; `stop` returns the slowest answer (ms). */
function pollHealth() {
  let running = true;
  let slowest = 0;
  let failed = 0;
  let unhealthy = 0;
  let polls = 0;
  let since = 0;
  const loop = (async () => {
    while (running) {
      since = performance.now();
      const status = await fetch(`${BASE}/api/health`).then(
        (r) => r.arrayBuffer().then(() => r.status),
        () => 0,
      );
      polls++;
      if (status === 0) failed++;
      else if (status !== 200) unhealthy++;
      slowest = Math.max(slowest, performance.now() - since);
      since = 0;
      await sleep(20);
    }
  })();
  return async () => {
    running = false;
    // A poll still unanswered when the import ended counts for as long as it has waited.
    if (since) slowest = Math.max(slowest, performance.now() - since);
    await Promise.race([loop, sleep(2000)]);
    return { slowest: Math.round(slowest), failed, unhealthy, polls };
  };
}

const zeros = (records: number) => `[${'0,'.repeat(records - 1)}0]`;

/** `count` valid sessions on the demo's centres, Tuesday–Wednesday courses from 2031 on. */
function sessions(count: number, centreIds: string[], tag: string) {
  const days: string[] = [];
  for (let d = new Date('2031-01-07T12:00:00Z'); days.length < 150; d.setUTCDate(d.getUTCDate() + 7)) {
    const day1 = d.toISOString().slice(0, 10);
    const day2 = new Date(d.getTime() + 86_400_000).toISOString().slice(0, 10);
    const holidays = publicHolidays(d.getUTCFullYear());
    if (!holidays.has(day1) && !holidays.has(day2)) days.push(day1);
  }
  return JSON.stringify({
    sessions: Array.from({ length: count }, (_, i) => ({
      id: `7${tag}000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      centreId: centreIds[i % centreIds.length],
      courseNumber: `DRILL-${tag}-${i}`,
      day1: days[i % days.length],
      startTime: '08:30',
      endTime: '16:30',
      priceEuros: 199 + (i % 50),
      capacity: 20,
      spotsAvailable: 12,
    })),
  });
}

interface Phase {
  name: string;
  type: string;
  body: () => string;
  expect: number;
}

async function drill(phase: Phase, key: string) {
  // Encoded before the clock starts: encoding 32 MB would hold this process's own health polls.
  const body = Buffer.from(phase.body());
  const server = await startServer();
  const pid = server.child.pid as number;
  await sleep(1500);
  const before = memory(pid)?.rss ?? 0;
  // Sampled meanwhile too: a server that dies takes its VmHWM with it.
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory(pid)?.rss ?? 0);
  }, 100);
  const stop = pollHealth();
  const started = performance.now();
  const answer = await fetch(`${BASE}/api/admin/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': phase.type },
    body,
  }).then(
    async (r) => ({ status: r.status, text: await r.text() }),
    (err: Error) => ({ status: 0, text: `no answer: ${err.message}` }),
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const health = await stop();
  clearInterval(sampler);
  await sleep(3000);
  const after = memory(pid);
  await sleep(after ? 7000 : 0);
  const later = memory(pid);
  const alive = later !== undefined;
  server.child.kill('SIGTERM');
  await new Promise((r) => (running(server.child) ? server.child.once('exit', r) : r(null)));
  // Written data is held by the read model: its fair baseline is a fresh instance on the same data.
  let restart: number | undefined;
  if (answer.status === 200) {
    const fresh = await startServer();
    await sleep(1500);
    restart = memory(fresh.child.pid as number)?.rss;
    fresh.child.kill('SIGTERM');
    await new Promise((r) => (running(fresh.child) ? fresh.child.once('exit', r) : r(null)));
  }
  const baseline = Math.max(before, restart ?? 0);
  const code = /"code":"([a-z_]+)"/.exec(answer.text)?.[1] ?? '';
  const errorCount = /"errorCount":(\d+)/.exec(answer.text)?.[1];
  return {
    phase: phase.name,
    bodyMB: +(body.length / 1048576).toFixed(1),
    status: answer.status,
    code: code + (errorCount ? ` (${errorCount} issues)` : ''),
    answerKB: +(Buffer.byteLength(answer.text) / 1024).toFixed(1),
    seconds: Number(seconds),
    healthMaxMs: health.slowest,
    healthFailed: health.failed,
    health503: health.unhealthy,
    rssBeforeMB: before,
    rssPeakMB: Math.max(peak, after?.peak ?? 0),
    rssAfterMB: after?.rss ?? 'died',
    rssAfter10sMB: later?.rss ?? 'died',
    rssRestartMB: restart ?? '',
    ok:
      alive &&
      answer.status === phase.expect &&
      health.slowest < 100 &&
      health.failed === 0 &&
      health.unhealthy === 0 &&
      (answer.status === 200 || answer.text.length < 20_000) &&
      (later?.rss ?? Number.POSITIVE_INFINITY) - baseline < 150,
    stderr: alive ? '' : server.stderr().split('\n').slice(-3).join(' '),
  };
}

async function main() {
  console.log(`Service: ${SERVICE_DIR}; data: ${DATA_DIR}; load average ${loadavg().map((l) => l.toFixed(1))}`);
  await cli('demo');
  const key = /sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/.exec(
    await cli('apikey:create', '--role', 'admin', '--name', 'drill'),
  )?.[0];
  if (!key) throw new Error('no key created');
  const exported = JSON.parse(await cli('export', '--format', 'json')) as { centres: { id: string }[] };
  const centreIds = exported.centres.map((c) => c.id);
  const phases: Phase[] = [
    { name: 'zeros-16m', type: 'application/json', body: () => zeros(16_777_000), expect: 413 },
    { name: 'zeros-5mb', type: 'application/json', body: () => zeros(2_621_440), expect: 413 },
    { name: 'bad-ndjson-200k', type: 'application/x-ndjson', body: () => 'x\n'.repeat(200_000), expect: 413 },
    { name: 'bad-ndjson-20k', type: 'application/x-ndjson', body: () => 'x\n'.repeat(20_000), expect: 400 },
    { name: 'valid-5000', type: 'application/json', body: () => sessions(5000, centreIds, 'a'), expect: 200 },
    { name: 'valid-20000', type: 'application/json', body: () => sessions(20_000, centreIds, 'b'), expect: 200 },
  ];
  const only = process.env.DRILL_PHASES?.split(',');
  const results = [];
  for (const phase of phases.filter((p) => !only || only.includes(p.name))) {
    const result = await drill(phase, key);
    console.log(JSON.stringify(result));
    results.push(result);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1))}`);
  console.table(results.map(({ stderr: _, ...r }) => r));
  const failed = results.filter((r) => !r.ok).map((r) => r.phase);
  console.log(failed.length ? `FAIL: ${failed.join(', ')}` : 'PASS');
  return failed.length ? 1 : 0;
}

main().then(
  (code) => {
    rmSync(DATA_DIR, { recursive: true, force: true });
    process.exit(code);
  },
  (err: unknown) => {
    console.error(err);
    rmSync(DATA_DIR, { recursive: true, force: true });
    process.exit(1);
  },
);
