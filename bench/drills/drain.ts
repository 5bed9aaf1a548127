/**
 * Shutdown under load: starts the compiled service, loads it with keep-alive connections, sends
 * SIGTERM in the middle, and counts what happened to each request by when it was sent.
 * The promise being checked: no request sent before the signal fails.
 *
 *   npm run bench:drain        (DRAIN_CONNECTIONS, default 50; DRAIN_SIGNAL_AFTER_MS, default 3000)
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';

const PORT = Number(process.env.DRAIN_PORT ?? 4610);
const CONNECTIONS = Number(process.env.DRAIN_CONNECTIONS ?? 50);
const SIGNAL_AFTER_MS = Number(process.env.DRAIN_SIGNAL_AFTER_MS ?? 3000);
const DATA_DIR = process.env.DRAIN_DATA_DIR ?? '.bench-data';
const PATHS = ['/api/stages?dept=69', '/api/stages?limit=100&includeUnavailable=true', '/api/health', '/openapi.json'];

interface Outcome {
  sentAt: number;
  ok: boolean;
  status?: number;
  error?: string;
}

function once(agent: Agent, path: string): Promise<Outcome> {
  const sentAt = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: PORT, path, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () => {
        const expected = Number(res.headers['content-length'] ?? bytes);
        const whole = bytes === expected;
        // A 503 from health while draining is the answer load balancers need, not a failure.
        const ok = whole && (res.statusCode === 200 || (path === '/api/health' && res.statusCode === 503));
        resolve({ sentAt, ok, status: res.statusCode as number, ...(whole ? {} : { error: 'truncated body' }) });
      });
      res.on('error', (err) => resolve({ sentAt, ok: false, error: err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ sentAt, ok: false, error: err.code ?? err.message }));
    req.end();
  });
}

async function main(): Promise<void> {
  // DRAIN_ENTRY runs another entry point, e.g. '--import tsx src/server.ts' to measure an older build.
  const entry = process.env.DRAIN_ENTRY?.split(' ') ?? ['dist/server.js'];
  const child = spawn(process.execPath, entry, {
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR, LOG_LEVEL: 'warn', RATE_LIMIT: 'off' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${PORT}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 600) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }

  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const outcomes: Outcome[] = [];
  let signalAt = Number.POSITIVE_INFINITY;
  let stop = false;
  const loops = Array.from({ length: CONNECTIONS }, async (_, n) => {
    for (let i = n; !stop; i++) {
      const outcome = await once(agent, PATHS[i % PATHS.length] as string);
      outcomes.push(outcome);
      // After the signal, a refused connection means the listener is gone: this loop is done.
      if (!outcome.ok && outcome.sentAt > signalAt) break;
    }
  });
  await new Promise((r) => setTimeout(r, SIGNAL_AFTER_MS));
  signalAt = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  const exitedAt = performance.now();
  stop = true;
  await Promise.all(loops);
  agent.destroy();

  const before = outcomes.filter((o) => o.sentAt < signalAt);
  const after = outcomes.filter((o) => o.sentAt >= signalAt);
  const errors = (list: Outcome[]) => {
    const byKind = new Map<string, number>();
    for (const o of list.filter((x) => !x.ok)) {
      const kind = o.error ?? `status ${o.status}`;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    return Object.fromEntries(byKind);
  };
  console.log(`connections ${CONNECTIONS}, signal after ${SIGNAL_AFTER_MS} ms, exit status ${code}`);
  console.log(`shutdown took ${Math.round(exitedAt - signalAt)} ms`);
  console.log(
    `sent before the signal: ${before.length}, failed: ${before.filter((o) => !o.ok).length}`,
    errors(before),
  );
  console.log(
    `sent after the signal: ${after.length}, answered: ${after.filter((o) => o.ok).length}, refused or failed: ${after.filter((o) => !o.ok).length}`,
    errors(after),
  );
  process.exit(before.some((o) => !o.ok) || code !== 0 ? 1 : 0);
}

void main();
