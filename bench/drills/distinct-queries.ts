/**
 * npx tsx bench/drills/distinct-queries.ts — memory under a stream of distinct queries, none asked
 * twice the same way: the compiled service on a fresh embedded database with the demo catalogue,
 * then QUERIES requests (default 200,000) in turn across 20 connections: REST searches, the
 * site's home-page searches and MCP `search_stages` calls, each with its own maximum price (and
 * every second one asked twice, so that the answer caches keep it). Prints the server's RSS
 * every tenth of the run and at the end, and exits 1 if a request failed or RSS ended more than
 * BOUND_MB (default 250) above where it started.
 *
 * Options: QUERIES, BOUND_MB, DRILL_SERVICE_DIR (another built checkout), DRILL_PORT (4597).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const QUERIES = Number(process.env.QUERIES ?? 200_000);
const BOUND_MB = Number(process.env.BOUND_MB ?? 250);
const SERVICE_DIR = resolve(process.env.DRILL_SERVICE_DIR ?? '.');
const PORT = Number(process.env.DRILL_PORT ?? 4597);
const BASE = `http://127.0.0.1:${PORT}`;
const DATA_DIR = mkdtempSync(join(tmpdir(), 'stages-distinct-'));

const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

async function start(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: SERVICE_DIR,
    env: { ...process.env, DATA_DIR, HOST: '127.0.0.1', PORT: String(PORT), LOG_LEVEL: 'error', RATE_LIMIT: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 2400; i++) {
    if (
      await fetch(`${BASE}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the service did not start');
}

const TOWNS = ['lyon', 'paris', 'marseille', 'toulouse', 'nantes', 'lille', 'bordeaux', 'rennes', 'nice', 'dijon'];

/** The i-th request: a price of its own (in cents) makes every query distinct. */
function request(i: number): { url: string; init?: RequestInit } {
  const price = (150 + (i % 300_000) / 100).toFixed(2);
  const town = TOWNS[i % TOWNS.length];
  switch (i % 3) {
    case 0:
      return { url: `${BASE}/api/stages?city=${town}&maxPrice=${price}&limit=50` };
    case 1:
      return { url: `${BASE}/?city=${town}&maxPrice=${price}` };
    default:
      return {
        url: `${BASE}/api/mcp`,
        init: {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'search_stages', arguments: { city: town, maxPrice: Number(price) } },
          }),
        },
      };
  }
}

async function main(): Promise<void> {
  const child = await start();
  const pid = child.pid as number;
  const before = rssMb(pid);
  console.log(`RSS after start: ${before} MB`);
  let next = 0;
  let failed = 0;
  let peak = before;
  const step = QUERIES / 10;
  const worker = async () => {
    for (;;) {
      const n = next++;
      if (n >= QUERIES) return;
      // Every second query is asked twice: a cache keeps an answer from its second request on.
      const { url, init } = request(n % 2 === 0 ? n : n - 1);
      const res = await fetch(url, init).catch(() => undefined);
      if (!res || res.status >= 400) failed++;
      await res?.arrayBuffer();
      if (n % step === step - 1) {
        const rss = rssMb(pid);
        peak = Math.max(peak, rss);
        console.log(`${n + 1} queries: RSS ${rss} MB`);
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  const after = rssMb(pid);
  child.kill('SIGTERM');
  rmSync(DATA_DIR, { recursive: true, force: true });
  const ok = failed === 0 && after - before <= BOUND_MB;
  console.log(`RSS ${before} → ${after} MB (peak ${peak}), ${failed} failed: ${ok ? 'ok' : 'FAIL'}`);
  process.exit(ok ? 0 : 1);
}

await main();
