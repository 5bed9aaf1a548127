/**
 * CPU per catalogue change applied to the read model, in-process: one session's price changed at a
 * time on the demo catalogue (APPLY_COST_SCALE, default 1; 10 for ~14,000 centres and ~200,000
 * sessions), each applied to the previous snapshot as a catch-up does (re-serialising the session,
 * copying the chunks of the lists it sits in and its shards of the id and centre indexes). Process CPU
 * (user + system) over APPLY_COST_CHANGES (default 2000) changes, the garbage collector's share included.
 *
 * With --expose-gc, also what each change leaves in the old generation: changes applied one by one,
 * each followed by two young collections (as the 20 ms between changes do under load: what the new
 * snapshot holds is promoted), the old generation's growth over APPLY_COST_RETAINED changes (400)
 * divided by their number, no full collection meanwhile. That growth is what the next full
 * collection finds to free, and how soon it comes.
 *
 *   npx tsx --expose-gc bench/micro/apply-cost.ts      (APPLY_COST_SCALE=10 for ten times the demo)
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import { dateIn } from '../../src/core/clock.js';

const SCALE = Number(process.env.APPLY_COST_SCALE ?? 1);
const CHANGES = Number(process.env.APPLY_COST_CHANGES ?? 2000);
const RETAINED = Number(process.env.APPLY_COST_RETAINED ?? 400);

const { centres, sessions } = generateDemoCatalogue({ today: dateIn(new Date()), scale: SCALE });
let snapshot = CatalogueSnapshot.build(1, new Date(), centres, sessions, urlBuilder('https://stages.example'));
let turn = 0;
const change = () => {
  const i = turn++;
  const s = sessions[(i * 7919) % sessions.length] as (typeof sessions)[number];
  const record = { ...s, priceCents: s.priceCents + 100 * (1 + (i % 7)) };
  snapshot = snapshot.apply({
    version: snapshot.version + 1,
    updatedAt: new Date(),
    centres: new Map(),
    sessions: new Map([[s.id, record]]),
  });
};
for (let i = 0; i < 200; i++) change(); // warm-up
const before = process.cpuUsage();
for (let i = 0; i < CHANGES; i++) change();
const used = process.cpuUsage(before);
console.log(
  `scale ${SCALE}: ${snapshot.sessions.length} sessions listed, ${((used.user + used.system) / CHANGES).toFixed(0)} µs of CPU per change applied (${CHANGES} changes)`,
);

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major'; execution: 'sync' }) => void }).gc;
if (gc) {
  const oldGeneration = () =>
    getHeapSpaceStatistics()
      .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
      .reduce((n, s) => n + s.space_used_size, 0);
  let fullCollections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        fullCollections++;
  });
  gc({ type: 'major', execution: 'sync' });
  observer.observe({ entryTypes: ['gc'] });
  const start = oldGeneration();
  for (let i = 0; i < RETAINED; i++) {
    change();
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });
  }
  const grown = oldGeneration() - start;
  await new Promise((resolve) => setImmediate(resolve)); // the observer's entries
  observer.disconnect();
  console.log(
    `scale ${SCALE}: ${(grown / RETAINED / 1024).toFixed(1)} KB left in the old generation per change (${RETAINED} changes${fullCollections > 0 ? `; ${fullCollections} full collections meanwhile: not a measure` : ''})`,
  );
}
