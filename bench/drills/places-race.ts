/**
 * npm run drill:places — every door racing for the last places, as a careless partner and a crowd would,
 * on two compiled instances over one PostgreSQL database of its own (`stages_drill_places` on the
 * machine's server: nothing is stopped here) and the command line as a third process.
 *
 * Each round: the session's reservations are cancelled and the centre states a figure of 5; 16 people
 * open the booking form (on both instances), then at once they all send it while the centre sends 8
 * relative takes ({"change": -1}), 3 imports and 2 PATCHes stating 5 again — figures that know nothing
 * of the bookings — and the command line imports the same file. Verdict per round: at most 5 bookings
 * acknowledged; on sale plus held never above 5; held equal to the reservations; no 5xx anywhere.
 * Exits 1 if any round fails.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApiKey } from '../../src/admin/api-keys.js';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer, spawnService, untilHealthy } from '../support/instances.js';

const ROUNDS = Number(process.env.PLACES_ROUNDS ?? 10);
const ADMIN_URL = process.env.PLACES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = 'stages_drill_places';
const PORTS = [4721, 4722] as const;
const FIGURE = 5;
const BOOKINGS = 16;

const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();
const run = promisify(execFile);

const onServer = (statement: string) => runOnServer(ADMIN_URL, statement);

async function start(port: number): Promise<ChildProcess> {
  const child = spawnService(port, {
    DATABASE_URL: dbUrl,
    DEMO_CATALOGUE: 'false',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    LOG_LEVEL: 'warn',
  });
  if (await untilHealthy(`http://127.0.0.1:${port}`, 1200)) return child;
  throw new Error(`instance on ${port} did not start`);
}

const origin = (i: number) => `http://127.0.0.1:${PORTS[i % 2]}`;

async function main(): Promise<void> {
  await onServer(`drop database if exists ${NAME} with (force)`);
  await onServer(`create database ${NAME}`);
  const database = await openDatabase({ kind: 'postgres', url: dbUrl });
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
  const { key } = await createApiKey(database.db, { name: 'drill', role: 'admin', centreId: null });
  await database.close();
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const children = [await start(PORTS[0]), await start(PORTS[1])];
  const dir = mkdtempSync(join(tmpdir(), 'stages-places-'));
  let failed = false;
  try {
    const list = (await (await fetch(`${origin(0)}/api/stages?limit=1`)).json()) as { data: { id: string }[] };
    const id = list.data[0]?.id as string;
    const api = async (i: number, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${origin(i)}${path}`, { method, headers: auth, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> };
    };
    // Counted from the reservations themselves, so that the drill reads a build without heldHere too.
    const activeReservations = async () =>
      (
        (await api(0, 'GET', `/api/admin/reservations?sessionId=${id}&limit=500`)).json.data as {
          id: string;
          status: string;
        }[]
      ).filter((r) => r.status !== 'cancelled');
    const record = (await api(0, 'GET', `/api/admin/sessions/${id}`)).json;
    const { id: _, updatedAt: __, heldHere: ___, ...fields } = record;
    const file = { sessions: [{ id, ...fields, spotsAvailable: FIGURE }] };
    const filePath = join(dir, 'centre.json');
    writeFileSync(filePath, JSON.stringify(file));

    console.log('round  booked  on sale  held  5xx  verdict');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const r of await activeReservations())
        await api(0, 'PATCH', `/api/admin/reservations/${r.id}`, { status: 'cancelled' });
      await api(0, 'PATCH', `/api/admin/sessions/${id}`, { spotsAvailable: FIGURE });
      await new Promise((r) => setTimeout(r, 300)); // both instances serve the reset
      // Everyone opens the session page first (the form has places for all they know).
      await Promise.all(
        Array.from({ length: BOOKINGS }, (_, i) =>
          fetch(`${origin(i)}/stages/${id}`).then((page) => page.arrayBuffer()),
        ),
      );
      const book = async (i: number) => {
        const res = await fetch(`${origin(i)}/stages/${id}/reservation`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({
            website: '',
            firstName: 'Camille',
            lastName: 'Martin',
            email: `r${round}p${i}@example.org`,
            phone: `06 00 00 ${String(round % 100).padStart(2, '0')} ${String(i).padStart(2, '0')}`,
            reason: 'voluntary',
            consent: 'yes',
          }),
        });
        await res.arrayBuffer();
        return res.status;
      };
      const statuses = (
        await Promise.all([
          ...Array.from({ length: BOOKINGS }, (_, i) => book(i)),
          ...Array.from({ length: 8 }, (_, i) =>
            api(i, 'POST', `/api/admin/sessions/${id}/places`, { change: -1 }).then((r) => r.status),
          ),
          ...Array.from({ length: 3 }, (_, i) => api(i, 'POST', '/api/admin/import', file).then((r) => r.status)),
          ...Array.from({ length: 2 }, (_, i) =>
            api(i, 'PATCH', `/api/admin/sessions/${id}`, { spotsAvailable: FIGURE }).then((r) => r.status),
          ),
          run(process.execPath, ['dist/cli/index.js', 'import', filePath], {
            env: { ...process.env, DATABASE_URL: dbUrl },
          }).then(
            () => 200,
            () => 500,
          ),
        ])
      ).flat();
      const booked = statuses.slice(0, BOOKINGS).filter((s) => s === 303).length;
      const errors = statuses.filter((s) => s >= 500).length;
      const after = {
        spotsAvailable: (await api(0, 'GET', `/api/admin/sessions/${id}`)).json.spotsAvailable as number,
        heldHere: (await activeReservations()).length,
      };
      const ok =
        booked <= FIGURE && after.spotsAvailable + after.heldHere <= FIGURE && after.heldHere === booked && !errors;
      failed ||= !ok;
      console.log(
        `${String(round).padStart(5)}  ${String(booked).padStart(6)}  ${String(after.spotsAvailable).padStart(7)}  ${String(after.heldHere).padStart(4)}  ${String(errors).padStart(3)}  ${ok ? 'ok' : 'FAIL'}`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 500));
    await onServer(`drop database if exists ${NAME} with (force)`);
  }
  console.log(failed ? 'FAIL: a round oversold or erred' : `ok: ${ROUNDS} rounds, never more than ${FIGURE} taken`);
  process.exit(failed ? 1 : 0);
}

await main();
