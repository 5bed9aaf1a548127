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
 * sessions, each department's, each centre's), and the process RSS.
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
if (scales.length > 1) {
  for (const scale of scales)
    execFileSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, MEMORY_SCALES: String(scale) },
      stdio: 'inherit',
    });
  process.exit(0);
}

/** The heap a snapshot built from database-like rows holds once the rows are let go. */
function heldFromRows(data: ReturnType<typeof generateDemoCatalogue>): number {
  const before = heap();
  const snapshot = buildFromRows(data);
  const held = heap() - before;
  if (snapshot.sessionsById.size !== data.sessions.length) throw new Error('a session was not built');
  return held;
}

/** In a frame of its own, so that nothing of it holds the rows once it returns. */
function buildFromRows(data: ReturnType<typeof generateDemoCatalogue>): CatalogueSnapshot {
  const centres = data.centres.map((c) => JSON.parse(JSON.stringify(c)) as (typeof data.centres)[number]);
  const sessions = data.sessions.map((s) => JSON.parse(JSON.stringify(s)) as (typeof data.sessions)[number]);
  return CatalogueSnapshot.build(1, new Date(), centres, sessions, urlBuilder('https://stages.example.fr'));
}

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
    ...snapshot.sessionsByDept.values(),
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
