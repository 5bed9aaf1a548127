/**
 * CPU of reading one catalogue change from the change log, as each instance does at every change
 * notification (readChangesSince: the catalogue's version, the log after the version held, the
 * changed sessions as they now stand). On the machine's PostgreSQL, in a database of its own
 * (`scale_bench_catch_up`, created and dropped here), with the demo catalogue (CATCH_UP_SCALE, default 1).
 * Process CPU (user + system) and wall time per read, over CATCH_UP_READS (default 3000) reads of
 * the same one-change delta, in CATCH_UP_ROUNDS (default 3) rounds after a warm-up; medians.
 *
 *   npx tsx bench/micro/catch-up-cost.ts     (CATCH_UP_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { sql } from 'drizzle-orm';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { readChangesSince } from '../../src/catalogue/repository.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer } from '../support/instances.js';

const ADMIN_URL = process.env.CATCH_UP_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCALE = Number(process.env.CATCH_UP_SCALE ?? 1);
const READS = Number(process.env.CATCH_UP_READS ?? 3000);
const ROUNDS = Number(process.env.CATCH_UP_ROUNDS ?? 3);
const NAME = 'scale_bench_catch_up';
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();

await runOnServer(ADMIN_URL, `drop database if exists ${NAME} with (force)`);
await runOnServer(ADMIN_URL, `create database ${NAME}`);
const database = await openDatabase({ kind: 'postgres', url });
try {
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()), scale: SCALE });
  // One session's price changed: the log's last version names it.
  await database.db.execute(
    sql`update stage_sessions set price_cents = price_cents + 100 where id = (select id from stage_sessions order by id limit 1)`,
  );
  const [state] = (
    (await database.db.execute(sql`select version from catalogue_state where id = 1`)) as unknown as {
      rows: { version: number }[];
    }
  ).rows;
  const since = Number(state?.version) - 1;
  const check = await readChangesSince(database.db, since);
  if (typeof check !== 'object' || check.sessions.size !== 1)
    throw new Error(`expected one changed session, read ${String(check)}`);
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < READS; i++) await readChangesSince(database.db, since);
    const used = process.cpuUsage(c0);
    if (round === 0) continue; // warm-up
    cpu.push((used.user + used.system) / READS);
    wall.push(((performance.now() - t0) * 1000) / READS);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log(
    `scale ${SCALE}: one change read from the log, per read: CPU ${median(cpu).toFixed(0)} µs (rounds ${cpu.map((x) => x.toFixed(0)).join(', ')}), wall ${median(wall).toFixed(0)} µs (${READS} reads a round)`,
  );
} finally {
  await database.close();
  await runOnServer(ADMIN_URL, `drop database if exists ${NAME} with (force)`);
}
