/**
 * npx tsx --expose-gc bench/micro/read-model-memory.ts — what the in-memory read model costs per session.
 *
 * For the demo catalogue at 1× and 10× (MEMORY_SCALES=1,10): generates the records, then measures
 * the heap before and after building the snapshot, after a full GC each time. Prints the heap held
 * by the snapshot in all and per session: first from the generator's records (which stay alive
 * here, so what the snapshot keeps of them is not counted), then, as a restart holds it, from rows
 * such as loadCatalogue hands over (one JSON.parse per session and a copy of each centre, dropped
 * once built: what the snapshot keeps of them is counted). Then what the typed columns that
 * searches walk add once every list has been searched (built on a list's first search: all
 * sessions, each department's, each centre's), and the process RSS. Last, in a process of its own,
 * what a full collection costs with only a snapshot built from rows held, then without it (median of
 * 9 forced ones): the marking a running instance's full collections do for the read model.
 */

import { execFileSync } from 'node:child_process';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc: npx tsx --expose-gc bench/micro/read-model-memory.ts');

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().external;
};

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const scales = (process.env.MEMORY_SCALES ?? '1,10').split(',').map(Number);
// One scale per process: what an earlier, larger or smaller catalogue left behind (WeakMap entries
// a full GC had not cleared yet) would otherwise blur the next one's figures.
// The full collections' cost is timed in a process of its own too, holding nothing but the snapshot.
const part = process.env.MEMORY_PART ?? 'both';
if (scales.length > 1 || part === 'both') {
  for (const scale of scales)
    for (const which of ['held', 'gc'])
      execFileSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        env: { ...process.env, MEMORY_SCALES: String(scale), MEMORY_PART: which },
        stdio: 'inherit',
      });
  process.exit(0);
}

/**
 * Full collections' cost now: median of 9 forced ones after 3 that settle the heap (the first after
 * a change sweeps and compacts what it freed), wall time and the process's CPU (its helper threads
 * included).
 */
interface GcCost {
  ms: number;
  cpuMs: number;
}

function fullGc(): GcCost {
  for (let i = 0; i < 3; i++) gc?.();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < 9; i++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    gc?.();
    walls.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[4] as number;
  return { ms: median(walls), cpuMs: median(cpus) };
}

/** The heap a snapshot built from database-like rows holds once the rows are let go. */
function heldFromRows(data: ReturnType<typeof generateDemoCatalogue>): number {
  const before = heap();
  const snapshot = buildFromRows(data);
  const held = heap() - before;
  if (snapshot.sessionsById.size !== data.sessions.length) throw new Error('a session was not built');
  return held;
}

/**
 * What a full collection costs with a snapshot built from rows held and nothing else (the rows let
 * go), then once it is let go too: the marking a running instance's full collections do for the read
 * model, on its main thread when the other cores are busy.
 */
function fullGcCost(scale: number): { withIt: GcCost; without: GcCost } {
  let snapshot: CatalogueSnapshot | undefined = buildFromRows(generateDemoCatalogue({ today: '2026-11-22', scale }));
  const withIt = fullGc();
  if (snapshot.sessionsById.size === 0) throw new Error('no session was built');
  snapshot = undefined;
  return { withIt, without: fullGc() };
}

/** In a frame of its own, so that nothing of it holds the rows once it returns. */
function buildFromRows(data: ReturnType<typeof generateDemoCatalogue>): CatalogueSnapshot {
  const centres = data.centres.map((c) => JSON.parse(JSON.stringify(c)) as (typeof data.centres)[number]);
  const sessions = data.sessions.map((s) => JSON.parse(JSON.stringify(s)) as (typeof data.sessions)[number]);
  return CatalogueSnapshot.build(1, new Date(), centres, sessions, urlBuilder('https://stages.example.fr'));
}

if (part === 'gc')
  for (const scale of scales) {
    const { withIt, without } = fullGcCost(scale);
    console.log(
      `          a full collection with it held: ${withIt.ms.toFixed(0)} ms (${withIt.cpuMs.toFixed(0)} ms of CPU), without: ${without.ms.toFixed(0)} ms (${without.cpuMs.toFixed(0)} ms)`,
    );
  }
else
  for (const scale of scales) {
    const data = generateDemoCatalogue({ today: '2026-11-22', scale });
    const before = heap();
    let snapshot: CatalogueSnapshot | undefined = CatalogueSnapshot.build(
      1,
      new Date(),
      data.centres,
      data.sessions,
      urlBuilder('https://stages.example.fr', {}),
    );
    const after = heap();
    const held = after - before;
    const lists = [
      ...snapshot.sessions.chunks,
      ...[...snapshot.departments.values()].flatMap((d) => d.sessions.chunks),
      ...snapshot.sessionsByCentre.values(),
    ];
    const { columns: of } = snapshot;
    const columns = lists.map((list) => of.of(list));
    const searched = heap() - after;
    const perSession = (bytes: number) => Math.round(bytes / data.sessions.length).toLocaleString('en');
    console.log(
      `scale ${String(scale).padStart(2)}: ${data.sessions.length.toLocaleString('en')} sessions, ${data.centres.length} centres: the snapshot holds ${mb(held)} (${perSession(held)} bytes per session), its search columns ${mb(searched)} more (${perSession(searched)} bytes per session, ${columns.length} lists); RSS ${mb(process.memoryUsage().rss)}`,
    );
    snapshot = undefined;
    columns.length = 0;
    const fromRows = heldFromRows(data);
    console.log(
      `          from rows as loadCatalogue hands them over, the snapshot holds ${mb(fromRows)} (${perSession(fromRows)} bytes per session)`,
    );
  }
