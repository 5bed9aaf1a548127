/**
 * Time per search, in-process, on the demo catalogue generated in memory (the very data the demo
 * loader writes), at SEARCH_COST_SCALE times its size: the indexed searchStages by kind of query,
 * mean CPU and p50/p99 wall time of single calls, against the walk over every session that the
 * tests use as reference (test/helpers/reference-search.ts).
 *
 *   npx tsx bench/micro/search-cost.ts                        (the demo: ~20,000 sessions)
 *   SEARCH_COST_SCALE=10 npx tsx bench/micro/search-cost.ts   (ten times: ~200,000 sessions)
 */

import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { DEPARTMENTS } from '../../src/catalogue/geography.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { searchStages } from '../../src/catalogue/search.js';
import { dateIn } from '../../src/core/clock.js';
import { referenceSearch } from '../../test/helpers/reference-search.js';

const SCALE = Number(process.env.SEARCH_COST_SCALE ?? 1);
const now = new Date();
const today = dateIn(now);
const generated = generateDemoCatalogue({ today, scale: SCALE });
const snapshot = CatalogueSnapshot.build(
  1,
  new Date(),
  generated.centres,
  generated.sessions,
  urlBuilder('http://localhost'),
);
const cities = [...new Set(generated.centres.map((c) => c.city))];
const postcodes = [...new Set(generated.centres.map((c) => c.postalCode))];
// A bare name several communes bear is a 400 asking which: near names the town with its postal code.
const places = [...new Set(generated.centres.map((c) => `${c.city} ${c.postalCode}`))];
const regions = [...new Set(DEPARTMENTS.map((d) => d.region))];
const base = { limit: 20, includeUnavailable: false } as const;
const families: Record<string, (i: number) => SearchQuery> = {
  'town only': (i) => ({ ...base, city: cities[i % cities.length] }),
  'town + max price': (i) => ({ ...base, city: cities[i % cities.length], maxPrice: 200 }),
  'region only': (i) => ({ ...base, region: regions[i % regions.length] }),
  'department only': (i) => ({ ...base, dept: DEPARTMENTS[i % DEPARTMENTS.length]?.code }),
  'near town (30 km)': (i) => ({ ...base, near: places[i % places.length] }),
  'near postcode, price, sat': (i) => ({
    ...base,
    near: postcodes[i % postcodes.length],
    sort: 'price',
    maxPrice: 250,
    days: [6],
  }),
  'near, sort distance, 100km': (i) => ({ ...base, near: places[i % places.length], radiusKm: 100, sort: 'distance' }),
  'no filter (counts all)': () => ({ ...base }),
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] as number;
const time = (fn: (q: SearchQuery) => unknown, make: (i: number) => SearchQuery, n: number) => {
  for (let i = 0; i < 200; i++) fn(make(i));
  const walls: number[] = [];
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const q = make(i);
    const t0 = performance.now();
    fn(q);
    walls.push(performance.now() - t0);
  }
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / n, p50: quantile(walls, 0.5) * 1000, p99: quantile(walls, 0.99) * 1000 };
};
console.log(`scale ${SCALE}: ${snapshot.sessions.length} sessions, ${snapshot.centreCount} centres`);
const n = Number(process.env.SEARCH_COST_RUNS ?? 2000);
for (const [name, make] of Object.entries(families)) {
  const indexed = time((q) => searchStages(snapshot, q, now), make, n);
  const walk = time((q) => referenceSearch(snapshot, q, now), make, Math.max(50, Math.floor(n / (10 * SCALE))));
  console.log(
    `${name.padEnd(27)} indexed ${indexed.cpu.toFixed(1).padStart(7)} µs (p50 ${indexed.p50.toFixed(0).padStart(5)} µs, p99 ${indexed.p99.toFixed(0).padStart(5)} µs)   walk ${walk.cpu.toFixed(0).padStart(7)} µs   ×${(walk.cpu / indexed.cpu).toFixed(1)}`,
  );
}
