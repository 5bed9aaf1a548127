import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { DEPARTMENTS } from '../../src/catalogue/geography.js';
import { dateIn } from '../../src/core/clock.js';

/**
 * `count` distinct /api/stages query strings over the demo catalogue the service holds today:
 * towns, departments, regions, places within a radius, prices, dates, weekdays and orders mixed
 * as people and agents ask. 6,000 requested in turn never hit the answer cache (it keeps an answer
 * only when its query is asked again within at most 2,048 others), so each one is a real search.
 */
export function variedQueries(count: number, today = dateIn(new Date())): string[] {
  const { centres } = generateDemoCatalogue({ today });
  const towns = [...new Set(centres.map((c) => c.city))];
  const postcodes = [...new Set(centres.map((c) => c.postalCode))];
  // A bare name several communes bear is a 400 asking which: near names the town with its postal code.
  const places = [...new Set(centres.map((c) => `${c.city} ${c.postalCode}`))];
  const regions = [...new Set(DEPARTMENTS.map((d) => d.region))];
  const day = (offset: number) => new Date(Date.parse(today) + offset * 86_400_000).toISOString().slice(0, 10);
  // mulberry32: integer arithmetic only, so the sequence is long and the same everywhere.
  let seed = 7;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const queries = new Set<string>();
  while (queries.size < count) {
    const q = new URLSearchParams();
    const kind = rnd();
    if (kind < 0.3) q.set('city', pick(towns));
    else if (kind < 0.5) q.set('dept', pick(DEPARTMENTS).code);
    else if (kind < 0.65) q.set('region', pick(regions));
    else if (kind < 0.8) {
      q.set('near', rnd() < 0.5 ? pick(places) : pick(postcodes));
      if (rnd() < 0.5) q.set('radiusKm', String(pick([10, 20, 50, 100])));
      if (rnd() < 0.3) q.set('sort', 'distance');
    } else {
      const centre = pick(centres);
      q.set('dept', centre.deptCode);
      q.set('city', centre.city);
    }
    if (rnd() < 0.5) q.set('maxPrice', String(150 + Math.floor(rnd() * 150)));
    if (rnd() < 0.5) q.set('from', day(Math.floor(rnd() * 200)));
    if (rnd() < 0.2) q.set('to', day(200 + Math.floor(rnd() * 150)));
    if (rnd() < 0.15) q.set('days', pick(['saturday', 'samedi', 'fri', 'lundi,mardi']));
    if (rnd() < 0.25 && !q.has('sort')) q.set('sort', 'price');
    q.set('limit', String(pick([5, 10, 20])));
    queries.add(`/api/stages?${q}`);
  }
  return [...queries];
}
