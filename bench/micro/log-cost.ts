/**
 * CPU that request logging adds per request: the same cached read answered in-process (inject)
 * with logging silent and at `info` into a sink, alternately, after a warm-up.
 *
 *   npx tsx bench/micro/log-cost.ts     (LOG_COST_DATA_DIR, default .bench-data: an initialised data dir)
 */
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';

const DATA_DIR = process.env.LOG_COST_DATA_DIR ?? '.bench-data';
const N = Number(process.env.LOG_COST_REQUESTS ?? 20000);
const sink = new Writable({
  write(_chunk, _encoding, callback) {
    callback();
  },
});

const database = await openDatabase({ kind: 'pglite', dataDir: DATA_DIR });
const results: Record<string, number[]> = { silent: [], info: [] };
for (const level of ['silent', 'info', 'silent', 'info', 'silent', 'info'] as const) {
  const config = loadConfig({ DATA_DIR, RATE_LIMIT: 'off', LOG_LEVEL: level });
  const app = await buildApp(config, { database, logger: { level, stream: sink } });
  await app.ready();
  for (let i = 0; i < 2000; i++) await app.inject('/api/stages?dept=69');
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await app.inject('/api/stages?dept=69');
  const used = process.cpuUsage(start);
  results[level]?.push((used.user + used.system) / N);
  await app.close();
}
await database.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const silent = median(results.silent ?? []);
const info = median(results.info ?? []);
console.log(
  `CPU per request: silent ${silent.toFixed(1)} µs, info ${info.toFixed(1)} µs, logging ${(info - silent).toFixed(1)} µs`,
);
