/**
 * Start-up and memory from the compiled service, as `npm start` runs it: the time from spawning
 * `node dist/server.js` until /api/health answers 200, and its RSS 1.5 s later, for a first start on
 * a fresh embedded database (demo catalogue) and then for restarts. Not part of `npm test`.
 *
 *   npm run build && npx tsx bench/load/startup.ts            (STARTUP_DATA_DIR, default .bench-startup;
 *                                                         STARTUP_RESTARTS, default 3; STARTUP_PORT, 4592)
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const dataDir = process.env.STARTUP_DATA_DIR ?? '.bench-startup';
const port = Number(process.env.STARTUP_PORT ?? 4592);
const restarts = Number(process.env.STARTUP_RESTARTS ?? 3);

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

async function start(label: string): Promise<void> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before it was healthy`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  await sleep(1500);
  const rss = rssMb(child.pid as number);
  child.kill('SIGTERM');
  await exited;
  console.log(`${label.padEnd(12)} healthy after ${seconds.toFixed(2)} s, RSS ${rss.toFixed(0)} MB`);
}

rmSync(dataDir, { recursive: true, force: true });
await start('first start');
for (let i = 0; i < restarts; i++) await start('restart');
rmSync(dataDir, { recursive: true, force: true });
