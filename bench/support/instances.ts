/**
 * What the drills that run instances of the compiled service on the machine's PostgreSQL share:
 * a statement on the server (creating and dropping their database), starting `dist/server.js`,
 * and waiting for it to be healthy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The node options and environment `npm start` runs the service with (package.json's start script,
 * of `serviceDir`), so that a bench measures the service as it ships: `MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-1}
 * exec node --max-semi-space-size=4 dist/server.js` gives `--max-semi-space-size=4` and MALLOC_ARENA_MAX=1.
 */
export function startOptions(serviceDir: string): { nodeArgs: string[]; env: Record<string, string> } {
  const start: unknown = JSON.parse(readFileSync(join(serviceDir, 'package.json'), 'utf8')).scripts?.start;
  const node = typeof start === 'string' ? /\bnode((?: --\S+)*) dist\/server\.js\b/.exec(start) : null;
  if (!node) throw new Error(`${serviceDir}/package.json: its start script does not run node … dist/server.js`);
  const arena = /MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\}/.exec(start as string)?.[1];
  return {
    nodeArgs: (node[1] ?? '').split(' ').filter((arg) => arg !== ''),
    env: arena === undefined ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? arena },
  };
}

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
