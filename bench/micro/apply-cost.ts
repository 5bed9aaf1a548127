/**
 * CPU per catalogue change applied to the read model, in-process: one session's price changed at a
 * time on the demo catalogue (APPLY_COST_SCALE, default 1; 10 for ~14,000 centres and ~200,000
 * sessions), each applied to the previous snapshot as a catch-up does (re-serialising the session,
 * copying the lists it sits in, its chunk of the list of all and its shards of the id and centre indexes). Process CPU (user + system) over APPLY_COST_CHANGES (default 2000)
 * changes, the garbage collector's share included.
 *
 *   npx tsx bench/micro/apply-cost.ts      (APPLY_COST_SCALE=10 for ten times the demo)
 */
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import { dateIn } from '../../src/core/clock.js';

const SCALE = Number(process.env.APPLY_COST_SCALE ?? 1);
const CHANGES = Number(process.env.APPLY_COST_CHANGES ?? 2000);

const { centres, sessions } = generateDemoCatalogue({ today: dateIn(new Date()), scale: SCALE });
let snapshot = CatalogueSnapshot.build(1, new Date(), centres, sessions, urlBuilder('https://stages.example'));
const run = (n: number) => {
  for (let i = 0; i < n; i++) {
    const s = sessions[(i * 7919) % sessions.length] as (typeof sessions)[number];
    const record = { ...s, priceCents: s.priceCents + 100 * (1 + (i % 7)) };
    snapshot = snapshot.apply({
      version: snapshot.version + 1,
      updatedAt: new Date(),
      centres: new Map(),
      sessions: new Map([[s.id, record]]),
    });
  }
};
run(200); // warm-up
const before = process.cpuUsage();
run(CHANGES);
const used = process.cpuUsage(before);
console.log(
  `scale ${SCALE}: ${snapshot.sessions.length} sessions listed, ${((used.user + used.system) / CHANGES).toFixed(0)} µs of CPU per change applied (${CHANGES} changes)`,
);
