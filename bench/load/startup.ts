/**
 * Start-up and memory from the compiled service: the time from the command (`npm start`, or
 * `node dist/server.js`) until /api/health answers 200, and the RSS of the whole process tree (npm, the
 * shell it may start, node) at that moment and 10 s later — for a first start on a fresh embedded
 * database (which creates it and loads the demo catalogue) and for a restart on it; beside the wall
 * time, the CPU time the tree used until then (which a shared machine's load changes much less). Each round runs
 * both for every service given, one after the other, so that checkouts compared in one run share the
 * machine's load; it prints each round, then the medians. Not part of `npm test`.
 *
 *   npm run build && npx tsx bench/load/startup.ts
 *     STARTUP_SERVICES  checkouts to compare, comma-separated, each built (default: this one)
 *     STARTUP_COMMAND   npm (default: `npm start`, as the README says) or node (`node dist/server.js`)
 *     STARTUP_ROUNDS    default 5
 *     STARTUP_SETTLE_S  seconds between health and the second RSS reading, default 10
 *     STARTUP_CASES     first,restart (default) or one of them; restarts alone reuse one prepared database
 *     STARTUP_PORT      default 4592
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const services = (process.env.STARTUP_SERVICES ?? '.').split(',').map((dir) => resolve(dir.trim()));
const command = process.env.STARTUP_COMMAND === 'node' ? 'node' : 'npm';
const rounds = Number(process.env.STARTUP_ROUNDS ?? 5);
const settleMs = Number(process.env.STARTUP_SETTLE_S ?? 10) * 1000;
const port = Number(process.env.STARTUP_PORT ?? 4592);
const cases = (process.env.STARTUP_CASES ?? 'first,restart').split(',');

/** Every process whose ancestry leads to `root`, `root` included. */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces and brackets: the fields after its last ')' are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // it ended meanwhile
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, parent] of parents) if (parent === found[i]) found.push(pid);
  return found;
}

/**
 * CPU seconds the tree has used (user and system, with its ended children's, which each parent
 * waited for): on a shared machine, a start's wall time depends on the others' load, its CPU time
 * much less. Clock ticks of 1/100 s (Linux's USER_HZ).
 */
function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of tree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime: fields 14-17 of proc(5), 12-15 after the command name.
      for (const i of [11, 12, 13, 14]) ticks += Number(fields[i]);
    } catch {
      // it ended meanwhile
    }
  }
  return ticks / 100;
}

function treeRssMb(root: number): number {
  let kb = 0;
  for (const pid of tree(root)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // it ended meanwhile
    }
  }
  return kb / 1024;
}

interface Figures {
  seconds: number;
  cpuSeconds: number;
  rssAtHealth: number;
  rssSettled: number;
}

async function start(serviceDir: string, dataDir: string, settle = settleMs): Promise<Figures> {
  const [file, args] = command === 'npm' ? ['npm', ['start', '--silent']] : [process.execPath, ['dist/server.js']];
  const answered = await fetch(`http://127.0.0.1:${port}/api/health`).then(
    () => true,
    () => false,
  );
  if (answered) throw new Error(`something already answers on port ${port}: set STARTUP_PORT to a free one`);
  const t0 = performance.now();
  const child = spawn(file, args, {
    cwd: serviceDir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((done) => child.once('exit', done));
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
  const cpuSeconds = treeCpuSeconds(child.pid as number);
  const rssAtHealth = treeRssMb(child.pid as number);
  await sleep(settle);
  const rssSettled = treeRssMb(child.pid as number);
  child.kill('SIGTERM');
  await exited;
  return { seconds, cpuSeconds, rssAtHealth, rssSettled };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const show = (f: Figures) =>
  `${f.seconds.toFixed(2)} s (CPU ${f.cpuSeconds.toFixed(2)} s), RSS ${f.rssAtHealth.toFixed(0)} → ${f.rssSettled.toFixed(0)} MB`;

const results = new Map(services.map((dir) => [dir, { first: [] as Figures[], restart: [] as Figures[] }]));
console.log(
  `${command === 'npm' ? 'npm start' : 'node dist/server.js'}, ${rounds} rounds, RSS at health → ${settleMs / 1000} s later`,
);
// Restarts alone: one database per service, created before the rounds and not counted.
const prepared = new Map<string, string>();
if (!cases.includes('first'))
  for (const dir of services) {
    const dataDir = mkdtempSync(join(tmpdir(), 'stages-startup-'));
    await start(dir, dataDir, 0);
    prepared.set(dir, dataDir);
  }
for (let round = 1; round <= rounds; round++) {
  for (const dir of services) {
    const dataDir = prepared.get(dir) ?? mkdtempSync(join(tmpdir(), 'stages-startup-'));
    try {
      console.log(`round ${round} ${dir}`);
      if (cases.includes('first')) {
        const first = await start(dir, dataDir);
        results.get(dir)?.first.push(first);
        console.log(`  first start ${show(first)}`);
      }
      if (cases.includes('restart')) {
        const restart = await start(dir, dataDir);
        results.get(dir)?.restart.push(restart);
        console.log(`  restart     ${show(restart)}`);
      }
    } finally {
      if (!prepared.has(dir)) rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
for (const dataDir of prepared.values()) rmSync(dataDir, { recursive: true, force: true });
console.log('\nmedians');
for (const [dir, { first, restart }] of results) {
  const med = (fs: Figures[]): Figures => ({
    seconds: median(fs.map((f) => f.seconds)),
    cpuSeconds: median(fs.map((f) => f.cpuSeconds)),
    rssAtHealth: median(fs.map((f) => f.rssAtHealth)),
    rssSettled: median(fs.map((f) => f.rssSettled)),
  });
  console.log(dir);
  if (first.length) console.log(`  first start ${show(med(first))}`);
  if (restart.length) console.log(`  restart     ${show(med(restart))}`);
}
