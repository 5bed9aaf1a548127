/**
 * Time per search, in-process, on the demo catalogue generated in memory (the very data the demo
 * loader writes), at SEARCH_COST_SCALE times its size: the indexed searchStages by kind of query,
 * mean CPU and p50/p99 wall time of single calls, against the walk over every session that the
 * tests use as reference (test/helpers/reference-search.ts).
 *
 *   npx tsx bench/micro/search-cost.ts                        (the demo: ~20,000 sessions)
 *   SEARCH_COST_SCALE=10 npx tsx bench/micro/search-cost.ts   (ten times: ~200,000 sessions)
 *
 * SEARCH_COST_COMPARE=<checkout>: that checkout's read model and search against this one's, both as
 * compiled in their dist/ (as the server runs them: tsx wraps every closure made in a call to keep
 * its name, which a search's closures pay for; `npm run build` in both first), each on a snapshot
 * of its own built from the same records, the two in turn for each kind over SEARCH_COST_ROUNDS
 * rounds (3), medians, the reference walk left out. SEARCH_COST_ONLY: a substring of the kinds'
 * names.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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
const COMPARE = process.env.SEARCH_COST_COMPARE ? resolve(process.env.SEARCH_COST_COMPARE) : undefined;
const ONLY = process.env.SEARCH_COST_ONLY;
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
const kinds = Object.entries(families).filter(([name]) => !ONLY || name.includes(ONLY));
if (COMPARE) await compare(COMPARE);
else {
  for (const [name, make] of kinds) {
    const indexed = time((q) => searchStages(snapshot, q, now), make, n);
    const walk = time((q) => referenceSearch(snapshot, q, now), make, Math.max(50, Math.floor(n / (10 * SCALE))));
    console.log(
      `${name.padEnd(27)} indexed ${indexed.cpu.toFixed(1).padStart(7)} µs (p50 ${indexed.p50.toFixed(0).padStart(5)} µs, p99 ${indexed.p99.toFixed(0).padStart(5)} µs)   walk ${walk.cpu.toFixed(0).padStart(7)} µs   ×${(walk.cpu / indexed.cpu).toFixed(1)}`,
    );
  }
}

/** Another checkout's search and this one's, each compiled, on its own snapshot of the same records, in turn. */
async function compare(dir: string) {
  const compiled = async (checkout: string) => {
    const module = (path: string) => import(pathToFileURL(resolve(checkout, 'dist', path)).href);
    const model = await module('catalogue/read-model.js');
    const search = (await module('catalogue/search.js')).searchStages as typeof searchStages;
    const built = model.CatalogueSnapshot.build(
      1,
      new Date(),
      generated.centres,
      generated.sessions,
      model.urlBuilder('http://localhost'),
    );
    return (q: SearchQuery) => search(built, q, now);
  };
  const theirSearch = await compiled(dir);
  const ourSearch = await compiled(resolve(import.meta.dirname, '../..'));
  const rounds = Number(process.env.SEARCH_COST_ROUNDS ?? 3);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log(`CPU per search, compiled, medians of ${rounds} rounds in turn: ${dir} | this checkout`);
  for (const [name, make] of kinds) {
    const theirs: number[] = [];
    const ours: number[] = [];
    for (let r = 0; r < rounds; r++) {
      theirs.push(time(theirSearch, make, n).cpu);
      ours.push(time(ourSearch, make, n).cpu);
    }
    console.log(
      `${name.padEnd(27)} ${median(theirs).toFixed(1).padStart(7)} µs | ${median(ours).toFixed(1).padStart(7)} µs   (rounds ${theirs.map((x) => x.toFixed(1)).join(', ')} | ${ours.map((x) => x.toFixed(1)).join(', ')})`,
    );
  }
}
