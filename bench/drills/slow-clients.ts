/**
 * Slow clients: starts the compiled service, opens SLOW_CONNECTIONS requests `POST /api/mcp` that
 * announce a 100 KB body and send one byte every SLOW_BYTE_MS, and every second counts how many are
 * still open, what they were answered, the service's open file descriptors, and how long
 * `/api/health` takes meanwhile. The promise being checked: each is cut (408) once
 * REQUEST_TIMEOUT_MS has passed, so none is open at the end. Exits 1 otherwise.
 *
 *   npm run build && npx tsx bench/drills/slow-clients.ts
 *   (SLOW_CONNECTIONS, default 1000; SLOW_BYTE_MS, default 10000; SLOW_DURATION_S, default 45;
 *    SLOW_ENTRY, default dist/server.js, e.g. /work/other-checkout/dist/server.js to drill another build)
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

const PORT = Number(process.env.SLOW_PORT ?? 4620);
const CONNECTIONS = Number(process.env.SLOW_CONNECTIONS ?? 1000);
const BYTE_MS = Number(process.env.SLOW_BYTE_MS ?? 10_000);
const DURATION_S = Number(process.env.SLOW_DURATION_S ?? 45);
const ENTRY = process.env.SLOW_ENTRY ?? 'dist/server.js';
const HEAD = `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;

interface Slow {
  socket: Socket;
  open: boolean;
  status?: string;
}

function openSlow(): Slow {
  const slow: Slow = { socket: connect(PORT, '127.0.0.1'), open: true };
  slow.socket.on('connect', () => slow.socket.write(HEAD));
  slow.socket.on('data', (d) => {
    slow.status ??= /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? 'other';
  });
  slow.socket.on('error', () => {});
  slow.socket.on('close', () => {
    slow.open = false;
  });
  return slow;
}

async function healthMs(): Promise<number> {
  const start = performance.now();
  await fetch(`http://127.0.0.1:${PORT}/api/health`).then((r) => r.arrayBuffer());
  return Math.round(performance.now() - start);
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, [ENTRY], {
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: '.bench-data', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (
    let i = 0;
    !(await healthMs().then(
      () => true,
      () => false,
    ));
    i++
  ) {
    if (i > 600) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const descriptors = () => readdirSync(`/proc/${child.pid}/fd`).length;
  console.log(`service up, ${descriptors()} descriptors; opening ${CONNECTIONS} slow requests`);
  const slow = Array.from({ length: CONNECTIONS }, openSlow);
  const drip = setInterval(() => {
    for (const s of slow) if (s.open) s.socket.write('1');
  }, BYTE_MS);
  for (let second = 1; second <= DURATION_S; second++) {
    await new Promise((r) => setTimeout(r, 1000));
    if (second % 5 !== 0 && second !== DURATION_S) continue;
    const open = slow.filter((s) => s.open).length;
    const answered = slow.filter((s) => s.status === '408').length;
    console.log(
      `t=${second}s open ${open}, answered 408 ${answered}, descriptors ${descriptors()}, health ${await healthMs()} ms`,
    );
  }
  clearInterval(drip);
  const left = slow.filter((s) => s.open).length;
  for (const s of slow) s.socket.destroy();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  console.log(left === 0 ? 'every slow request was cut' : `${left} slow requests still open after ${DURATION_S} s`);
  process.exitCode = left === 0 ? 0 : 1;
}

void main();
