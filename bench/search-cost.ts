/**
 * CPU per search, in-process, on the demo catalogue: the indexed searchStages against the walk
 * over every session it replaced (test/helpers/reference-search.ts), by kind of query.
 *
 *   npx tsx bench/search-cost.ts      (SEARCH_COST_DATA_DIR, default .bench-data)
 */
import { dateIn } from '../src/catalogue/clock.js';
import { DEPARTMENTS } from '../src/catalogue/geography.js';
import { CatalogueSnapshot, urlBuilder } from '../src/catalogue/read-model.js';
import { loadCatalogue } from '../src/catalogue/repository.js';
import type { SearchQuery } from '../src/catalogue/schemas.js';
import { searchStages } from '../src/catalogue/search.js';
import { openDatabase } from '../src/db/connect.js';
import { referenceSearch } from '../test/helpers/reference-search.js';

const database = await openDatabase({ kind: 'pglite', dataDir: process.env.SEARCH_COST_DATA_DIR ?? '.bench-data' });
const stored = await loadCatalogue(database.db);
await database.close();
const snapshot = CatalogueSnapshot.build(
  stored.version,
  stored.updatedAt,
  stored.centres,
  stored.sessions,
  urlBuilder('http://localhost'),
);
const today = dateIn(new Date());
const cities = [...new Set(stored.centres.map((c) => c.city))];
const regions = [...new Set(DEPARTMENTS.map((d) => d.region))];
const families: Record<string, (i: number) => SearchQuery> = {
  'town only': (i) => ({ city: cities[i % cities.length], limit: 20, includeUnavailable: false }),
  'town + max price': (i) => ({ city: cities[i % cities.length], maxPrice: 200, limit: 20, includeUnavailable: false }),
  'region only': (i) => ({ region: regions[i % regions.length], limit: 20, includeUnavailable: false }),
  'department only': (i) => ({ dept: DEPARTMENTS[i % DEPARTMENTS.length]?.code, limit: 20, includeUnavailable: false }),
};
const time = (fn: (q: SearchQuery) => unknown, make: (i: number) => SearchQuery, n: number) => {
  for (let i = 0; i < 200; i++) fn(make(i));
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(make(i));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
};
console.log(`${snapshot.sessions.length} sessions, ${snapshot.centreCount} centres`);
for (const [name, make] of Object.entries(families)) {
  const indexed = time((q) => searchStages(snapshot, q, today), make, 3000);
  const walk = time((q) => referenceSearch(snapshot, q, today), make, 3000);
  console.log(
    `${name.padEnd(18)} indexed ${indexed.toFixed(1)} µs   walk ${walk.toFixed(1)} µs   ×${(walk / indexed).toFixed(1)}`,
  );
}
