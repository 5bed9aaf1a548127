/**
 * CPU per pick of the centres near a place (`near`, search/centres.ts pickCentres), in-process on the
 * demo catalogue generated in memory: every centre's position in turn as the place, radii of 10 to
 * 100 km, none of it cached. With NEAR_PICK_COMPARE, another checkout's pickCentres (its src/) runs
 * in the same process, rounds alternating; medians.
 *
 *   npx tsx bench/micro/near-pick.ts
 *   NEAR_PICK_COMPARE=/work/wt/base npx tsx bench/micro/near-pick.ts
 *
 * Options: NEAR_PICK_ROUNDS (5), NEAR_PICK_RUNS (picks a round, 3,000).
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import { candidateCentresOf, type LocationFilters, pickCentres } from '../../src/catalogue/search/centres.js';
import { dateIn } from '../../src/core/clock.js';

const ROUNDS = Number(process.env.NEAR_PICK_ROUNDS ?? 5);
const RUNS = Number(process.env.NEAR_PICK_RUNS ?? 3000);
const RADII = [10, 20, 30, 50, 100];

type Pick = typeof pickCentres;
const picks: [string, Pick][] = [['this checkout', pickCentres]];
if (process.env.NEAR_PICK_COMPARE) {
  const dir = resolve(process.env.NEAR_PICK_COMPARE);
  const other = await import(pathToFileURL(join(dir, 'src/catalogue/search/centres.ts')).href);
  picks.unshift([dir, other.pickCentres as Pick]);
}

const generated = generateDemoCatalogue({ today: dateIn(new Date()) });
const snapshot = CatalogueSnapshot.build(1, new Date(), generated.centres, generated.sessions, urlBuilder('http://x'));
const centres = candidateCentresOf(snapshot.centresById);
const filters = (i: number): LocationFilters => {
  const c = centres[i % centres.length] as (typeof centres)[number];
  return {
    dept: undefined,
    city: undefined,
    regionNeedle: undefined,
    origin: { lat: c.lat, lng: c.lng, label: '', key: '' },
    radius: RADII[i % RADII.length] as number,
  };
};
console.log(`${centres.length} centres, ${RUNS} picks a round`);
const results = new Map<string, number[]>(picks.map(([name]) => [name, []]));
for (let i = 0; i < 500; i++) for (const [, pick] of picks) pick(centres, filters(i));
for (let round = 1; round <= ROUNDS; round++) {
  const line: string[] = [];
  for (const [name, pick] of picks) {
    const start = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) pick(centres, filters(i));
    const used = process.cpuUsage(start);
    const perPick = (used.user + used.system) / RUNS;
    results.get(name)?.push(perPick);
    line.push(`${name}: ${perPick.toFixed(1)} µs`);
  }
  console.log(`round ${round}: ${line.join(', ')}`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [name, xs] of results) console.log(`median ${name}: ${median(xs).toFixed(1)} µs per pick`);
