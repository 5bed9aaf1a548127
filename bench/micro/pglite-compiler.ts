/**
 * What running PGlite's WebAssembly under V8's baseline compiler alone (`--liftoff-only`, as the
 * server does: server.ts) costs and saves, against V8's default (baseline, then the optimising
 * compiler for hot functions): on a copy of an embedded database holding the demo catalogue, the
 * CPU and RSS of opening it, then six rounds of 1,000 single-row updates (each a statement of its own,
 * as a booking or a partner's PATCH) and one 5,000-row update (as an import), CPU per round, and
 * RSS at the end. Each variant in a process of its own, interleaved over rounds.
 *
 *   npx tsx bench/micro/pglite-compiler.ts DATA_DIR    (an embedded database with the demo: any
 *                                                       DATA_DIR a start of the service made; it is copied, never written)
 *     PGLITE_COMPILER_ROUNDS  processes per variant, default 3
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const rssMb = () => Math.round(process.memoryUsage().rss / 1048576);

if (process.env.PGLITE_COMPILER_CHILD) {
  // The flag must be set before PGlite compiles its module, as the server does.
  if (process.env.PGLITE_COMPILER_CHILD === 'liftoff-only') setFlagsFromString('--liftoff-only');
  const { PGlite } = await import('@electric-sql/pglite');
  const start = process.cpuUsage();
  // The server's buffers (src/db/pglite.ts).
  const db = await PGlite.create(process.argv[2] as string, { postgresqlconf: ['shared_buffers = 8MB'] });
  const open = `open ${cpuMs(start).toFixed(0)} ms CPU, RSS ${rssMb()} MB`;
  const ids = (await db.query<{ id: string }>('select id from stage_sessions order by id limit 1000')).rows.map(
    (r) => r.id,
  );
  const rounds: string[] = [];
  for (let round = 0; round < 6; round++) {
    let since = process.cpuUsage();
    for (const id of ids)
      await db.query('update stage_sessions set spots_available = greatest(spots_available - 1, 0) where id = $1', [
        id,
      ]);
    const single = cpuMs(since) / ids.length;
    since = process.cpuUsage();
    await db.query(
      'update stage_sessions set price_cents = price_cents + 1 where id in (select id from stage_sessions order by id limit 5000)',
    );
    rounds.push(`${single.toFixed(2)}/${cpuMs(since).toFixed(0)}`);
  }
  console.log(
    `${open}; per round, ms CPU per single-row update / per 5,000-row update: ${rounds.join('  ')}; RSS ${rssMb()} MB`,
  );
  await db.close();
} else {
  const source = process.argv[2];
  if (!source) throw new Error('usage: npx tsx bench/micro/pglite-compiler.ts DATA_DIR');
  const rounds = Number(process.env.PGLITE_COMPILER_ROUNDS ?? 3);
  for (let round = 1; round <= rounds; round++)
    for (const variant of ['default', 'liftoff-only']) {
      const copy = mkdtempSync(join(tmpdir(), 'stages-pglite-compiler-'));
      try {
        cpSync(source, copy, { recursive: true });
        const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1] as string, copy], {
          env: { ...process.env, PGLITE_COMPILER_CHILD: variant },
          encoding: 'utf8',
        });
        console.log(`round ${round} ${variant.padEnd(12)} ${out.trim()}`);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
}
