/**
 * npx tsx --expose-gc bench/read-model-memory.ts — what the in-memory read model costs per session.
 *
 * For the demo catalogue at 1× and 10× (MEMORY_SCALES=1,10): generates the records, then measures
 * the heap before and after building the snapshot (the records themselves excluded: they are
 * what the database hands over and are dropped once built), after a full GC each time. Prints the
 * heap held by the snapshot in all and per session, and the process RSS.
 */

import { generateDemoCatalogue } from '../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../src/catalogue/read-model.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc: npx tsx --expose-gc bench/read-model-memory.ts');

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().external;
};

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

for (const scale of (process.env.MEMORY_SCALES ?? '1,10').split(',').map(Number)) {
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
  console.log(
    `scale ${String(scale).padStart(2)}: ${data.sessions.length.toLocaleString('en')} sessions, ${data.centres.length} centres: the snapshot holds ${mb(held)} (${Math.round(held / data.sessions.length).toLocaleString('en')} bytes per session); RSS ${mb(process.memoryUsage().rss)}`,
  );
  snapshot = undefined;
  void snapshot;
}
