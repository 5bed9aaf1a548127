/**
 * Start-up and memory from the compiled service: the time from the command (`npm start`, or
 * `node dist/server.js`) until /api/health answers 200, and the RSS of the whole process tree (npm, the
 * shell it may start, node) at that moment and 10 s later — for a first start on a fresh embedded
 * database (which creates it and loads the demo catalogue) and for a restart on it; beside the wall
 * time, the CPU time the tree used until then (which a shared machine's load changes much less), and the settled
 * tree's memory with the pages of a file both processes map (the node binary) counted once. Each round runs
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
 *     STARTUP_DATABASE_URL  restarts on this PostgreSQL database (its catalogue as it is, e.g. after the CLI's
 *                       `demo --scale 10`) instead of an embedded one; restarts only (STARTUP_CASES=restart)
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
const databaseUrl = process.env.STARTUP_DATABASE_URL;
if (databaseUrl && cases.includes('first'))
  throw new Error('STARTUP_DATABASE_URL measures restarts: set STARTUP_CASES=restart');
// The database the service runs on: an embedded one in `dataDir`, or the PostgreSQL database given.
const databaseEnv = (dataDir: string): Record<string, string> =>
  databaseUrl ? { DATABASE_URL: databaseUrl, DEMO_CATALOGUE: 'false' } : { DATA_DIR: dataDir };

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

/**
 * The tree's memory with each file's pages counted once: the sum of RSS counts the node binary's
 * pages (about 40 MB) in npm's process and again in the server's, though both map the same pages
 * of the same file. Anonymous memory (each process's own) summed, and for each file the most any
 * one process of the tree has of it resident (a floor for the union of their pages).
 */
function treeDistinctMb(root: number): number {
  let anonKb = 0;
  const fileKb = new Map<string, number>();
  for (const pid of tree(root)) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    const perFile = new Map<string, number>();
    let file: string | undefined;
    for (const line of text.split('\n')) {
      const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
      if (mapping) {
        // inode 0: anonymous memory, the heap and the stack; otherwise a file.
        file = mapping[1] === '0' ? undefined : mapping[2];
        continue;
      }
      const rss = /^Rss:\s+(\d+)/.exec(line);
      if (!rss) continue;
      if (file === undefined) anonKb += Number(rss[1]);
      else perFile.set(file, (perFile.get(file) ?? 0) + Number(rss[1]));
    }
    for (const [name, kb] of perFile) fileKb.set(name, Math.max(fileKb.get(name) ?? 0, kb));
  }
  let kb = anonKb;
  for (const v of fileKb.values()) kb += v;
  return kb / 1024;
}

interface Figures {
  seconds: number;
  cpuSeconds: number;
  rssAtHealth: number;
  rssSettled: number;
  /** The settled tree's memory with each file's pages counted once (treeDistinctMb). */
  distinctSettled: number;
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
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...databaseEnv(dataDir), LOG_LEVEL: 'warn' },
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
  const distinctSettled = treeDistinctMb(child.pid as number);
  child.kill('SIGTERM');
  await exited;
  return { seconds, cpuSeconds, rssAtHealth, rssSettled, distinctSettled };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const show = (f: Figures) =>
  `${f.seconds.toFixed(2)} s (CPU ${f.cpuSeconds.toFixed(2)} s), RSS ${f.rssAtHealth.toFixed(0)} → ${f.rssSettled.toFixed(0)} MB` +
  ` (${f.distinctSettled.toFixed(0)} MB with shared file pages once)`;

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
    distinctSettled: median(fs.map((f) => f.distinctSettled)),
  });
  console.log(dir);
  if (first.length) console.log(`  first start ${show(med(first))}`);
  if (restart.length) console.log(`  restart     ${show(med(restart))}`);
}
