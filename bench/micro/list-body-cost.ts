/**
 * CPU per list answer written (REST `GET /api/stages`'s body and ETag), in-process, on the demo
 * catalogue generated in memory: the results of varied searches (20 sessions a page; some with
 * `near` and their distances) are searched once, then written over and over by ListBodies, as the
 * stages route does after its search. "warm": each session's digest is already known (a session
 * answered before); "cold": a new ListBodies each pass, so every session's digest is computed.
 *
 *   npx tsx bench/micro/list-body-cost.ts          (LIST_BODY_SCALE=10 for ten times the demo)
 *
 * LIST_BODY_ROUNDS rounds (default 3) of LIST_BODY_PASSES passes over the results (default 200);
 * prints each round's figures and their medians.
 */
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { DEPARTMENTS } from '../../src/catalogue/geography.js';
import { ListBodies } from '../../src/catalogue/list-body.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { type SearchResult, searchStages } from '../../src/catalogue/search.js';
import { dateIn } from '../../src/core/clock.js';

const SCALE = Number(process.env.LIST_BODY_SCALE ?? 1);
const ROUNDS = Number(process.env.LIST_BODY_ROUNDS ?? 3);
const PASSES = Number(process.env.LIST_BODY_PASSES ?? 200);

const now = new Date();
const generated = generateDemoCatalogue({ today: dateIn(now), scale: SCALE });
const snapshot = CatalogueSnapshot.build(1, now, generated.centres, generated.sessions, urlBuilder('http://localhost'));

const queries: SearchQuery[] = [];
for (const d of DEPARTMENTS) queries.push({ limit: 20, includeUnavailable: false, dept: d.code });
for (const near of ['Lyon', 'Paris', 'Marseille', 'Toulouse', 'Lille', 'Nantes', 'Bordeaux', 'Strasbourg'])
  queries.push({ limit: 20, includeUnavailable: false, near, radiusKm: 50 });
const results: SearchResult[] = queries.map((q) => searchStages(snapshot, q, now)).filter((r) => r.entries.length > 0);
const iso = now.toISOString();

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function round(fresh: boolean): number {
  let bodies = new ListBodies();
  let written = 0;
  const start = cpuMicros();
  for (let pass = 0; pass < PASSES; pass++) {
    if (fresh) bodies = new ListBodies();
    for (const r of results) written += bodies.write(r, 'bench', iso).bytes.length;
  }
  const micros = cpuMicros() - start;
  if (written === 0) throw new Error('nothing written');
  return micros / (PASSES * results.length);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
round(false); // warm-up: compiles the path and fills the digests
const warm: number[] = [];
const cold: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  warm.push(round(false));
  cold.push(round(true));
  console.log(`round ${i + 1}: warm ${warm[i]?.toFixed(2)} µs, cold ${cold[i]?.toFixed(2)} µs per answer`);
}
const sessions = results.reduce((n, r) => n + r.entries.length, 0) / results.length;
console.log(
  `scale ${SCALE}, ${results.length} answers of ${sessions.toFixed(1)} sessions: warm ${median(warm).toFixed(2)} µs, cold ${median(cold).toFixed(2)} µs per answer (medians of ${ROUNDS})`,
);
