/**
 * npm run drill — drills that need load or minutes, not part of `npm test` (the suite keeps the
 * short, deterministic versions). Each starts its own service and its own redis-server on the
 * hardening ports (4580–4589), loads it with autocannon, and prints requests/s per phase.
 *
 *   redis-hang  Redis healthy, then hung with SIGSTOP, then resumed with SIGCONT: throughput in
 *               each phase and what /api/health says. A circuit breaker keeps the hung phase
 *               near the healthy one.
 *   batch       what one anonymous address can get through /api/mcp in one window with JSON-RPC
 *               batches of 100 calls (refused) and of 10 (each call counted).
 *   forged      forged bearer tokens from one address: how many are verified before 429s.
 *   health      a flood of GET /api/health on PostgreSQL (its own database, stages_drill, created on
 *               DRILL_POSTGRES_URL, default the local server): requests/s, and database transactions
 *               per second as pg_stat_database counts them.
 *
 * Options: DRILL (comma-separated names, default all), DRILL_DURATION seconds per phase (default
 * 5), DRILL_CONNECTIONS (default 20), DRILL_SERVICE_DIR (another checkout to drill, e.g. an older
 * commit, default this one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const DURATION = Number(process.env.DRILL_DURATION ?? 5);
const CONNECTIONS = Number(process.env.DRILL_CONNECTIONS ?? 20);
const ONLY = (process.env.DRILL ?? 'redis-hang,batch,forged,health').split(',');
const SERVICE_DIR = resolve(process.env.DRILL_SERVICE_DIR ?? '.');
const DATA_DIR = resolve('.drill-data');
const SERVICE_PORT = 4580;
const REDIS_PORT = 4581;
const BASE = `http://127.0.0.1:${SERVICE_PORT}`;

async function waitForLine(child: ChildProcess, match: RegExp, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => child.kill(), timeoutMs);
  try {
    for await (const line of createInterface({ input: child.stdout! })) if (match.test(line)) return;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`process exited before printing ${match}`);
}

async function startRedis(): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await waitForLine(child, /Ready to accept connections/, 10_000);
  child.stdout?.resume();
  return child;
}

async function startService(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: SERVICE_DIR,
    env: { ...process.env, PORT: String(SERVICE_PORT), HOST: '127.0.0.1', DATA_DIR, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // LOG_LEVEL warn hides "listening": poll instead.
  child.stdout?.resume();
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return child;
    } catch {}
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the service did not start');
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  await once(child, 'exit');
}

async function load(path: string, options: Partial<autocannon.Options> = {}) {
  const result = await autocannon({ url: `${BASE}${path}`, connections: CONNECTIONS, duration: DURATION, ...options });
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function health() {
  return (await (await fetch(`${BASE}/api/health`)).json()) as { rateLimit?: { status: string } };
}

async function redisHang() {
  const redis = await startRedis();
  const service = await startService({
    RATE_LIMIT: 'on',
    RATE_LIMIT_ANONYMOUS: '100000000',
    REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
  });
  try {
    const path = '/api/stages?dept=69&limit=5';
    const rows: Record<string, unknown>[] = [];
    await load(path, { duration: 2 }); // warm-up
    rows.push({ phase: 'Redis up', ...(await load(path)), health: (await health()).rateLimit?.status });
    redis.kill('SIGSTOP');
    rows.push({ phase: 'Redis hung (SIGSTOP)', ...(await load(path)), health: (await health()).rateLimit?.status });
    redis.kill('SIGCONT');
    await new Promise((r) => setTimeout(r, 3000));
    await fetch(`${BASE}${path}`);
    await new Promise((r) => setTimeout(r, 500));
    rows.push({ phase: 'Redis resumed (SIGCONT)', ...(await load(path)), health: (await health()).rateLimit?.status });
    console.log('\nredis-hang: GET', path, `(${CONNECTIONS} connections, ${DURATION} s per phase)`);
    console.table(rows);
  } finally {
    await stop(service);
    await stop(redis);
  }
}

const toolCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'search_stages', arguments: { limit: 100, includeUnavailable: true } },
});

async function batch() {
  // TRUST_PROXY so that each batch size gets its own address (X-Forwarded-For).
  const service = await startService({ RATE_LIMIT: 'on', TRUST_PROXY: '1' });
  try {
    console.log(
      '\nbatch: one anonymous address, default budget, POST /api/mcp with batches of tools/call search_stages limit 100',
    );
    const rows: Record<string, unknown>[] = [];
    for (const [n, size] of [100, 10, 1].entries()) {
      const body = JSON.stringify(Array.from({ length: size }, (_, i) => toolCall(i)));
      let calls = 0;
      let bytes = 0;
      const statuses: Record<number, number> = {};
      const started = performance.now();
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${BASE}/api/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${n + 1}` },
          body,
        });
        const text = await res.text();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        bytes += text.length;
        if (res.status === 200) calls += size;
      }
      rows.push({
        'batch size': size,
        requests: 20,
        statuses: JSON.stringify(statuses),
        'tool calls answered': calls,
        'bytes out': bytes,
        'wall ms': Math.round(performance.now() - started),
      });
    }
    console.table(rows);
  } finally {
    await stop(service);
  }
}

async function forged() {
  const service = await startService({ RATE_LIMIT: 'on' });
  try {
    // The real kid, so that each token reaches the signature check.
    const { keys } = (await (await fetch(`${BASE}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: keys[0]?.kid })).toString(
      'base64url',
    );
    const payload = Buffer.from(JSON.stringify({ sub: 'x', client_id: 'x' })).toString('base64url');
    const sig = Buffer.alloc(64, 7).toString('base64url');
    const result = await autocannon({
      url: `${BASE}/api/mcp`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${header}.${payload}.${sig}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const stats = (result.statusCodeStats ?? {}) as Record<string, { count: number } | undefined>;
    console.log(`\nforged: ${DURATION} s of forged ES256 tokens from one address (${CONNECTIONS} connections)`);
    console.table([
      {
        'requests/s': Math.round(result.requests.average),
        '401 (verified)': stats['401']?.count ?? 0,
        '429 (refused before verification)': stats['429']?.count ?? 0,
      },
    ]);
  } finally {
    await stop(service);
  }
}

async function healthFlood() {
  const server = process.env.DRILL_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const { default: pg } = await import('pg');
  const creator = new pg.Client({ connectionString: server });
  await creator.connect();
  if ((await creator.query("select 1 from pg_database where datname = 'stages_drill'")).rowCount === 0)
    await creator.query('create database stages_drill');
  await creator.end();
  const url = new URL(server);
  url.pathname = '/stages_drill';
  const service = await startService({ DATABASE_URL: url.toString(), RATE_LIMIT: 'on' });
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const commits = async () =>
      Number(
        (await admin.query('select xact_commit from pg_stat_database where datname = current_database()')).rows[0]
          .xact_commit,
      );
    await load('/api/health', { duration: 1 });
    const before = await commits();
    const result = await load('/api/health');
    // An idle backend reports to pg_stat_database within 10 s (PGSTAT_IDLE_INTERVAL): wait for it.
    await new Promise((r) => setTimeout(r, 11_000));
    const queries = (await commits()) - before;
    console.log(`\nhealth: GET /api/health on PostgreSQL (${CONNECTIONS} connections, ${DURATION} s)`);
    console.table([{ ...result, 'database transactions/s (whole database)': Math.round(queries / DURATION) }]);
  } finally {
    await admin.end();
    await stop(service);
  }
}

const drills: Record<string, () => Promise<void>> = { 'redis-hang': redisHang, batch, forged, health: healthFlood };
for (const name of ONLY) {
  const drill = drills[name];
  if (!drill) throw new Error(`unknown drill ${name}; known: ${Object.keys(drills).join(', ')}`);
  await drill();
}
