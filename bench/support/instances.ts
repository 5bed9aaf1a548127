/**
 * What the drills that run instances of the compiled service on the machine's PostgreSQL share:
 * a statement on the server (creating and dropping their database), starting `dist/server.js`,
 * and waiting for it to be healthy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import pg from 'pg';

/** One statement on the PostgreSQL server at `adminUrl` (CREATE/DROP DATABASE cannot run in a transaction). */
export async function runOnServer(adminUrl: string, statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/**
 * `node dist/server.js` (of `cwd`, this checkout by default) listening on 127.0.0.1:`port`, rate
 * limits off, with `env` on top of this process's environment; its output goes to ours.
 */
export function spawnService(port: number, env: Record<string, string>, cwd?: string): ChildProcess {
  return spawn(process.execPath, ['dist/server.js'], {
    ...(cwd === undefined ? {} : { cwd }),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: 'off', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Whether GET /api/health on `origin` answers 200 now. */
export const healthy = (origin: string) =>
  fetch(`${origin}/api/health`).then(
    (r) => r.ok,
    () => false,
  );

/**
 * Polls GET /api/health every 25 ms, `tries` times at most: true as soon as it answers 200, false
 * when it never does or `child` has exited.
 */
export async function untilHealthy(origin: string, tries: number, child?: ChildProcess): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await healthy(origin)) return true;
    if (child && child.exitCode !== null) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}
