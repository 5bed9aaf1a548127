/**
 * npm run bench — loads the service (as `npm start` runs it: its node options and MALLOC_ARENA_MAX,
 * read from package.json), a bare node:http server answering the same bytes and a
 * Fastify route answering them (the framework's share), with the same load generator and
 * connections, one after the other, and prints requests/s, p99 latency and the ratios
 * service/bare and Fastify/bare for each scenario; for the answers made on every request, also a
 * bare node:http server making them with the service's own search and rendering (floor-server.ts,
 * the work's share) and the ratio floor/bare; then the same service with rate limiting on
 * (every tier's budget too large to reach), and the ratio limiter on/off. Not part of `npm test`.
 *
 * Options (environment): BENCH_DURATION seconds per run (default 10), BENCH_ROUNDS how many times each
 * scenario runs against each server, interleaved, the figures printed being medians (default 1),
 * BENCH_CONNECTIONS (default 50),
 * BENCH_ONLY a substring of scenario names to run, BENCH_PORT the first of five ports to use (default:
 * random ports), BENCH_DATA_DIR the data directory (default .bench-data), BENCH_SERVICE_DIR another built
 * checkout whose dist/server.js to measure (default this one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startOptions } from '../support/instances.js';
import { SCENARIOS, type Scenario } from './scenarios.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const ONLY = process.env.BENCH_ONLY;
const DATA_DIR = resolve(process.env.BENCH_DATA_DIR ?? '.bench-data');
// PGlite serves one process per data directory: the second service gets its own.
const LIMITED_DATA_DIR = `${DATA_DIR}-limited`;
const SERVICE_DIR = resolve(process.env.BENCH_SERVICE_DIR ?? '.');
// As `npm start` runs it: its node options (the young generation's size) and allocator's arenas.
const SERVICE_START = startOptions(SERVICE_DIR);

/** Every per-window tier of src/config.ts, each far above what a run can send from one address. */
const UNREACHABLE_BUDGETS = Object.fromEntries(
  ['ANONYMOUS', 'PAGES', 'AUTHENTICATED', 'TOKEN', 'ADMIN'].map((tier) => [`RATE_LIMIT_${tier}`, '1000000000']),
);

/** How the bare server finds an answer: method and path, and a POST's body. */
function requestKey(method: string, path: string, body: string | undefined): string {
  return body === undefined ? `${method} ${path}` : `${method} ${path}\n${body}`;
}

async function firstLine(child: ChildProcess, match: RegExp, timeoutMs: number): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill(), timeoutMs);
  try {
    for await (const line of lines) {
      if (match.test(line)) return line;
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`process exited before printing ${match}`);
}

async function startService(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVICE_START.nodeArgs, 'dist/server.js'], {
    cwd: SERVICE_DIR,
    env: { ...process.env, ...SERVICE_START.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await firstLine(child, /listening on/, 120_000);
  // Keep draining its log so that a full pipe never blocks the server.
  child.stdout?.resume();
  return child;
}

/** A yardstick's script, beside this one. */
const yardstick = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/**
 * A yardstick (bare-server.ts, fastify-server.ts; floor-server.ts ignores them) fed the recorded
 * bodies; `port` 0 for any. `start`: node options and environment of its own.
 */
async function startYardstick(
  script: string,
  bodies: Record<string, string>,
  listenOn: number,
  start: { nodeArgs: string[]; env: Record<string, string> } = { nodeArgs: [], env: {} },
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...start.nodeArgs, '--import', 'tsx', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      BARE_PORT: String(listenOn),
      FASTIFY_PORT: String(listenOn),
      FLOOR_PORT: String(listenOn),
      SERVICE_DIR,
      ...start.env,
    },
  });
  child.stdin?.end(JSON.stringify(bodies));
  const port = Number(await firstLine(child, /^\d+$/, 30_000));
  return { child, port };
}

interface Result {
  rps: number;
  p99: number;
  non2xx: number;
}

async function load(port: number, s: Scenario): Promise<Result> {
  const paths = s.paths;
  const bodies = s.bodies;
  let next = 0;
  let n = 0;
  const sep = s.path.includes('?') ? '&' : '?';
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${s.path}`,
    method: s.method,
    headers: s.headers,
    body: s.body,
    connections: CONNECTIONS,
    duration: DURATION,
    // One shared cursor: consecutive requests, whatever their connection, ask different things.
    ...(paths
      ? { requests: [{ method: s.method, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }] }
      : {}),
    ...(s.uncached ? { requests: [{ setupRequest: (req) => ({ ...req, path: `${s.path}${sep}_=${++n}` }) }] } : {}),
    ...(bodies
      ? { requests: [{ method: s.method, setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }] }
      : {}),
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main() {
  await mkdir(DATA_DIR, { recursive: true });
  const scenarios = SCENARIOS.filter((s) => !ONLY || s.name.includes(ONLY));
  // BENCH_PORT: the service, the rate-limited one, the bare, the Fastify and the floor servers on that port and the next four.
  const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : 39_000 + Math.floor(Math.random() * 1000);
  const logLevel: Record<string, string> = process.env.BENCH_LOG_LEVEL
    ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL }
    : {};
  const service = await startService(port, { RATE_LIMIT: 'off', ...logLevel });
  // The same service with rate limiting on, with budgets no run can exhaust in any tier (the API's
  // anonymous one, the site's pages, tokens, authenticated clients, operator keys): what the limiter
  // costs on the hot path (one counter per request, in memory).
  const limited = await startService(port + 1, {
    DATA_DIR: LIMITED_DATA_DIR,
    RATE_LIMIT: 'on',
    ...UNREACHABLE_BUDGETS,
    ...logLevel,
  });
  try {
    // Record the service's exact answer for each scenario: the bare server replays those bytes.
    const bodies: Record<string, string> = {};
    for (const s of scenarios) {
      if (s.resolvePath) s.path = await s.resolvePath(`http://127.0.0.1:${port}`);
      for (const path of s.paths ?? [s.path]) {
        for (const body of s.bodies ?? [s.body]) {
          const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: s.method, headers: s.headers, body });
          if (res.status !== 200) throw new Error(`${s.name}: the service answered ${res.status} to ${path}`);
          // The limited service gets the same first requests, so that neither run pays for first
          // uses (the place index behind near loads in about a second) while it is measured.
          await (
            await fetch(`http://127.0.0.1:${port + 1}${path}`, { method: s.method, headers: s.headers, body })
          ).text();
          const text = await res.text();
          // An MCP error travels in a 200 too: every benchmarked call must be a result.
          if (s.method === 'POST' && !text.includes('"result":')) throw new Error(`${s.name}: ${text.slice(0, 300)}`);
          bodies[requestKey(s.method, path, body)] = text;
        }
      }
    }
    const fixedPorts = Boolean(process.env.BENCH_PORT);
    // Each yardstick started is stopped at the end, or when a later one fails to start.
    const yardsticks: ChildProcess[] = [];
    const started = async (run: Promise<{ child: ChildProcess; port: number }>) => {
      const y = await run;
      yardsticks.push(y.child);
      return y;
    };
    try {
      const bare = await started(startYardstick(yardstick('bare-server.ts'), bodies, fixedPorts ? port + 2 : 0));
      const framework = await started(
        startYardstick(yardstick('fastify-server.ts'), bodies, fixedPorts ? port + 3 : 0),
      );
      const floor = scenarios.some((s) => s.floor)
        ? // Run as the service is (its collector's settings weigh on work made per request), on the
          // catalogue it keeps in its data directory, with its links: the same bytes.
          await started(
            startYardstick(yardstick('floor-server.ts'), {}, fixedPorts ? port + 4 : 0, {
              nodeArgs: SERVICE_START.nodeArgs,
              env: { ...SERVICE_START.env, DATA_DIR, PUBLIC_BASE_URL: `http://localhost:${port}` },
            }),
          )
        : undefined;
      // The floor's answers are the service's, byte for byte but the instant in a list's updatedAt,
      // asked as the load asks them (with `_` where it is uncached).
      const masked = (text: string) => text.replace(/"updatedAt":"[^"]*"/, '"updatedAt":""');
      for (const s of scenarios.filter((s) => s.floor))
        for (const path of s.paths ?? [s.path]) {
          const asked = s.uncached ? `${path}${path.includes('?') ? '&' : '?'}_=1` : path;
          const res = await fetch(`http://127.0.0.1:${floor?.port}${asked}`);
          const made = await res.text();
          const recorded = bodies[requestKey('GET', path, undefined)] ?? '';
          if (res.status !== 200 || masked(made) !== masked(recorded))
            throw new Error(
              `${s.name}: the floor server's answer to ${asked} (${res.status}, ${Buffer.byteLength(made)} bytes) is not the service's (${Buffer.byteLength(recorded)} bytes): it reads the catalogue the service keeps in ${DATA_DIR}, or without a copy of this build's generates today's demo`,
            );
        }
      console.log(
        `\n${DURATION} s per run, ${ROUNDS} round${ROUNDS > 1 ? 's (medians)' : ''}, ${CONNECTIONS} connections, autocannon, Node ${process.version}\n`,
      );
      console.log(
        'scenario'.padEnd(34),
        'bytes'.padStart(7),
        'service req/s'.padStart(14),
        'p99 ms'.padStart(7),
        'bare req/s'.padStart(11),
        'p99 ms'.padStart(7),
        'fastify req/s'.padStart(14),
        'floor req/s'.padStart(12),
        'ratio'.padStart(6),
        'fastify/bare'.padStart(13),
        'floor/bare'.padStart(11),
        '│',
        'limiter on'.padStart(10),
        'on/off'.padStart(7),
      );
      for (const s of scenarios) {
        // Rounds interleaved (service, bare, Fastify, the floor where it answers, limited, then again),
        // so that a slow spell of the shared machine falls on all of them; each figure is the median
        // of its rounds.
        const runs: { svc: Result; ref: Result; fw: Result; fl?: Result; lim: Result }[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          runs.push({
            svc: await load(port, s),
            ref: await load(bare.port, s),
            fw: await load(framework.port, s),
            ...(floor && s.floor ? { fl: await load(floor.port, s) } : {}),
            lim: await load(port + 1, s),
          });
        }
        const median = (pick: (r: (typeof runs)[number]) => number) => {
          const xs = runs.map(pick).sort((a, b) => a - b);
          return xs.length % 2
            ? (xs[xs.length >> 1] as number)
            : ((xs[xs.length / 2 - 1] as number) + (xs[xs.length / 2] as number)) / 2;
        };
        const svc = {
          rps: median((r) => r.svc.rps),
          p99: median((r) => r.svc.p99),
          non2xx: median((r) => r.svc.non2xx),
        };
        const ref = {
          rps: median((r) => r.ref.rps),
          p99: median((r) => r.ref.p99),
          non2xx: median((r) => r.ref.non2xx),
        };
        const fw = { rps: median((r) => r.fw.rps), non2xx: median((r) => r.fw.non2xx) };
        const lim = { rps: median((r) => r.lim.rps), non2xx: median((r) => r.lim.non2xx) };
        const ratios = runs.map((r) => r.svc.rps / r.ref.rps).sort((a, b) => a - b);
        const flNon2xx = median((r) => r.fl?.non2xx ?? 0);
        if (svc.non2xx || ref.non2xx || fw.non2xx || flNon2xx || lim.non2xx) {
          console.log(
            `  (non-2xx answers: service ${svc.non2xx}, bare ${ref.non2xx}, Fastify ${fw.non2xx}, floor ${flNon2xx}, limiter on ${lim.non2xx})`,
          );
        }
        const keys = (s.paths ?? [s.path]).flatMap((p) =>
          (s.bodies ?? [s.body]).map((b) => requestKey(s.method, p, b)),
        );
        const bytes = Math.round(
          keys.reduce((sum, k) => sum + Buffer.byteLength(bodies[k] as string), 0) / keys.length,
        );
        console.log(
          s.name.padEnd(34),
          String(bytes).padStart(7),
          svc.rps.toFixed(0).padStart(14),
          String(svc.p99).padStart(7),
          ref.rps.toFixed(0).padStart(11),
          String(ref.p99).padStart(7),
          fw.rps.toFixed(0).padStart(14),
          (s.floor ? median((r) => r.fl?.rps ?? 0).toFixed(0) : '').padStart(12),
          median((r) => r.svc.rps / r.ref.rps)
            .toFixed(2)
            .padStart(6),
          median((r) => r.fw.rps / r.ref.rps)
            .toFixed(2)
            .padStart(13),
          (s.floor ? median((r) => (r.fl?.rps ?? 0) / r.ref.rps).toFixed(2) : '').padStart(11),
          '│',
          lim.rps.toFixed(0).padStart(10),
          median((r) => r.lim.rps / r.svc.rps)
            .toFixed(2)
            .padStart(7),
          ROUNDS > 1 ? `   ratios ${ratios.map((x) => x.toFixed(2)).join(' ')}` : '',
        );
      }
    } finally {
      for (const child of yardsticks) child.kill();
    }
  } finally {
    for (const child of [service, limited]) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
