/**
 * npm run drill:writes — the write side on a bad day, on a PostgreSQL cluster of its own (initdb in a
 * temporary directory, port 4590, run as the `postgres` user), never the machine's shared server.
 *
 * Two compiled instances on it; a writer sends place changes to instance A (each with an
 * Idempotency-Key, retried on failure as a booking system would), readers load instance B. Phases:
 *   healthy   a few seconds of both
 *   hung      PostgreSQL frozen with SIGSTOP: writes must fail with 503 (within the 5 s query
 *             timeout), never 500; reads keep being served from the read model
 *   resumed   SIGCONT: writes succeed again and both instances serve the same version within a second
 *   stopped   PostgreSQL shut down: writes 503 at once, reads go on
 *   restarted both instances catch up by themselves
 * Meanwhile people book another session on instance B through the site's reservation form, one
 * after the other, each retrying on a 503 page with the same form (as a person taps again).
 * Then: every change the writer was told succeeded (200) is in the database exactly once (the
 * places add up), and none was applied twice by a retry; every person told "booked" (303) holds
 * exactly one reservation, and the booked session's places fell by exactly the reservations made.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

const PG_PORT = 4590;
const PORTS = [4591, 4592] as const;
const BIN = execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1']).toString().trim();
const DIR = mkdtempSync(join(tmpdir(), 'stages-pg-drill-'));
const DATA = join(DIR, 'data');
const URL_ = `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`;
const asPostgres = (cmd: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args], { stdio: 'ignore' });

function postgresPid(): number {
  return Number(
    execFileSync('head', ['-1', join(DATA, 'postmaster.pid')])
      .toString()
      .trim(),
  );
}
/** Every process of the cluster (postmaster and its children): SIGSTOP must freeze them all. */
function clusterPids(): number[] {
  const main = postgresPid();
  const children = execFileSync('sh', ['-c', `pgrep -P ${main} || true`])
    .toString()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return [main, ...children];
}

async function start(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: URL_,
      DEMO_CATALOGUE: 'false',
      LOG_LEVEL: 'error',
      RATE_LIMIT: 'off',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 800; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`instance ${port} did not start`);
}

const version = async (port: number) =>
  ((await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { catalogue: { version: number } }).catalogue
    .version;

async function main(): Promise<void> {
  execFileSync('chown', ['postgres', DIR]);
  asPostgres('initdb', ['-D', DATA, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const pgStart = () =>
    asPostgres('pg_ctl', ['-D', DATA, '-o', `-p ${PG_PORT} -k ${DIR} -c listen_addresses=127.0.0.1`, '-w', 'start']);
  pgStart();
  const children: ChildProcess[] = [];
  try {
    const database = await openDatabase({ kind: 'postgres', url: URL_ });
    await database.migrate();
    await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
    const { key } = await createApiKey(database.db, { name: 'drill', role: 'admin', centreId: null });
    const target = (
      (await database.db.execute(
        // A session with room both ways: the writer alternates -1 and +1.
        sql`select id::text as id, spots_available as spots from stage_sessions where spots_available between 8 and 12 order by id limit 1`,
      )) as unknown as { rows: { id: string; spots: number }[] }
    ).rows[0] as { id: string; spots: number };
    const booked = (
      (await database.db.execute(
        sql`select id::text as id, spots_available as spots from stage_sessions
            where spots_available between 10 and 20 and id <> ${target.id}::uuid and day1 > current_date + 2
            order by id limit 1`,
      )) as unknown as { rows: { id: string; spots: number }[] }
    ).rows[0] as { id: string; spots: number };
    await database.close();

    children.push(await start(PORTS[0]), await start(PORTS[1]));

    // The writer: one change at a time, each with its own Idempotency-Key, retried until it gets an answer
    // that is not 503 (a booking system must not lose or double a sale because the database hiccuped).
    const outcomes: Record<string, number> = {};
    let applied = 0;
    let stop = false;
    const writer = (async () => {
      for (let n = 0; !stop; n++) {
        const change = n % 2 ? 1 : -1;
        for (let attempt = 0; ; attempt++) {
          const status = await fetch(`http://127.0.0.1:${PORTS[0]}/api/admin/sessions/${target.id}/places`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'idempotency-key': `drill-${n}`,
            },
            body: JSON.stringify({ change }),
            signal: AbortSignal.timeout(10_000),
          }).then(
            (r) => r.status,
            () => 0,
          );
          outcomes[status] = (outcomes[status] ?? 0) + 1;
          if (status === 200) {
            applied += change;
            break;
          }
          if (status !== 503 && status !== 0) throw new Error(`write answered ${status}`);
          if (stop && attempt > 20) throw new Error('a write never got through');
          await new Promise((r) => setTimeout(r, 250));
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    // The people: each opens the session page on B, then posts the form until it gets a page that is not a 503.
    const bookings: Record<string, number> = {};
    const told = new Set<string>();
    const booker = (async () => {
      const base = `http://127.0.0.1:${PORTS[1]}`;
      for (let n = 0; !stop; n++) {
        const page = await fetch(`${base}/stages/${booked.id}`).catch(() => undefined);
        const html = page ? await page.text() : '';
        // The form is there while the session has places.
        if (!page || !html.includes(`/stages/${booked.id}/reservation`)) {
          bookings.full = (bookings.full ?? 0) + 1;
          await new Promise((r) => setTimeout(r, 300));
          continue;
        }
        const email = `drill${n}@example.org`;
        for (;;) {
          const status = await fetch(`${base}/stages/${booked.id}/reservation`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
            body: new URLSearchParams({
              firstName: 'Camille',
              lastName: 'Exercice',
              email,
              phone: '06 12 34 56 78',
              reason: 'voluntary',
              consent: 'yes',
            }),
            signal: AbortSignal.timeout(10_000),
          }).then(
            (r) => r.status,
            () => 0,
          );
          bookings[status] = (bookings[status] ?? 0) + 1;
          if (status === 303) told.add(email);
          if (status === 303 || status === 409) break;
          if (status !== 503 && status !== 0) throw new Error(`a reservation answered ${status}`);
          await new Promise((r) => setTimeout(r, 250));
        }
        // About one person a second: the session fills over the phases, not in the first one.
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();

    const phase = async (name: string, seconds: number) => {
      const before = { ...outcomes };
      const bookedBefore = { ...bookings };
      const r = await autocannon({
        url: `http://127.0.0.1:${PORTS[1]}`,
        connections: 10,
        duration: seconds,
        requests: [
          { path: '/api/stages?dept=69' },
          { path: '/api/stages?city=lyon' },
          { path: `/api/stages/${target.id}` },
        ],
      });
      const writes = Object.fromEntries(
        Object.entries(outcomes)
          .map(([k, v]) => [k, v - (before[k] ?? 0)])
          .filter(([, v]) => Number(v) > 0),
      );
      const forms = Object.fromEntries(
        Object.entries(bookings)
          .map(([k, v]) => [k, v - (bookedBefore[k] ?? 0)])
          .filter(([, v]) => Number(v) > 0),
      );
      console.log(
        `${name.padEnd(10)} reads on B: ${r.requests.average.toFixed(0).padStart(5)} req/s, non-2xx ${r.non2xx}, errors ${r.errors}   writes to A by status: ${JSON.stringify(writes)}   reservation forms on B by status: ${JSON.stringify(forms)}`,
      );
    };

    await phase('healthy', 4);
    for (const pid of clusterPids()) process.kill(pid, 'SIGSTOP');
    await phase('hung', 8);
    for (const pid of clusterPids()) process.kill(pid, 'SIGCONT');
    let t0 = performance.now();
    await phase('resumed', 4);
    asPostgres('pg_ctl', ['-D', DATA, '-m', 'fast', '-w', 'stop']);
    await phase('stopped', 4);
    pgStart();
    t0 = performance.now();
    await phase('restarted', 4);
    stop = true;
    await writer;
    await booker;
    let agreed = -1;
    for (let i = 0; i < 200; i++) {
      const [a, b] = [await version(PORTS[0]), await version(PORTS[1])];
      if (a === b) {
        agreed = a;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    console.log(
      `instances agree on version ${agreed} (${(performance.now() - t0).toFixed(0)} ms after the restart began)`,
    );

    const check = new pg.Client({ connectionString: URL_ });
    await check.connect();
    const spots = (await check.query('select spots_available from stage_sessions where id = $1', [target.id])).rows[0]
      ?.spots_available as number;
    const held = (
      await check.query(
        `select s.spots_available as spots, count(r.id)::int as n, count(distinct r.email)::int as people,
                coalesce(sum(case when r.email = any($2) then 1 else 0 end), 0)::int as told
           from stage_sessions s left join reservations r on r.session_id = s.id and r.status <> 'cancelled'
          where s.id = $1 group by s.spots_available`,
        [booked.id, [...told]],
      )
    ).rows[0] as { spots: number; n: number; people: number; told: number };
    await check.end();
    const bookingsOk =
      held.n === held.people && held.told === told.size && held.n === told.size && held.spots === booked.spots - held.n;
    console.log(
      `reservations: ${told.size} people were told "booked", the database holds ${held.n} reservations of ${held.people} people, places went from ${booked.spots} to ${held.spots}: ${bookingsOk ? 'consistent (one reservation per person told, none unannounced, places add up)' : 'INCONSISTENT'}`,
    );
    if (!bookingsOk) process.exitCode = 1;
    console.log(
      `places: started at ${target.spots}, the writer was told of a net change of ${applied}, the database holds ${spots}: ${spots === target.spots + applied ? 'consistent (nothing lost, nothing doubled)' : 'INCONSISTENT'}`,
    );
    if (spots !== target.spots + applied) process.exitCode = 1;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    try {
      for (const pid of clusterPids()) process.kill(pid, 'SIGCONT');
      asPostgres('pg_ctl', ['-D', DATA, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(DIR, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
