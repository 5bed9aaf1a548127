/**
 * npm run drill:rolling — a release rolled across instances, as docs/operations.md says to: the previous
 * release keeps serving while the new one migrates the shared PostgreSQL schema under it (expand), then the
 * two serve side by side, then the previous one drains and stops.
 *
 * The previous release is a commit (ROLLING_OLD_REF; by default the main line's commit just before the
 * newest one that changed src/db/migrations), checked out in a temporary worktree and compiled there; the new
 * release is this checkout's dist/. On a database of its own on the machine's server (`stages_drill_rolling`;
 * nothing is stopped here):
 *   1. the old instance starts on an empty database (its schema, the demo catalogue) and takes traffic;
 *   2. the new instance starts on the same database, applying its migrations while the old one serves;
 *   3. both serve ROLLING_SECONDS: searches, session pages, bookings, the partner API's price changes, OAuth
 *      registrations and tokens, MCP calls with a token issued by the other instance;
 *   4. the old instance is sent SIGTERM (it drains) and the new one serves alone.
 * Verdict: no 5xx and no failed request on either instance at any step; every booking acknowledged is held
 * on the session (on sale plus held unchanged); a booking made on the old instance opens on the new one.
 * Exits 1 otherwise.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiKey } from '../../src/admin/api-keys.js';
import { openDatabase } from '../../src/db/connect.js';
import { runOnServer, spawnService, untilHealthy } from '../support/instances.js';

const ADMIN_URL = process.env.ROLLING_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.ROLLING_SECONDS ?? 20);
const NAME = 'stages_drill_rolling';
const PORTS = { old: 4731, new: 4732 } as const;
type Side = keyof typeof PORTS;
const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${NAME}` }).toString();
const here = resolve('.');

const git = (...args: string[]) => execFileSync('git', args, { cwd: here, encoding: 'utf8' }).trim();

/** The main line's commit before the newest one that changed the migrations: the release before this schema. */
function previousRelease(): string {
  if (process.env.ROLLING_OLD_REF) return git('rev-parse', process.env.ROLLING_OLD_REF);
  const changed = git('log', '--first-parent', '-1', '--format=%H', '--', 'src/db/migrations');
  return git('rev-parse', `${changed}^1`);
}

/** The old release compiled in a worktree of its own (its dependencies: this checkout's when the lockfile is the same). */
function buildOld(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'stages-rolling-'));
  git('worktree', 'add', '--detach', dir, ref);
  const sameLock =
    readFileSync(join(here, 'package-lock.json'), 'utf8') === readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (sameLock) symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
  else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  execFileSync(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: dir,
    stdio: 'inherit',
  });
  return dir;
}

const onServer = (statement: string) => runOnServer(ADMIN_URL, statement);

const origin = (side: Side) => `http://127.0.0.1:${PORTS[side]}`;

async function start(side: Side, cwd: string): Promise<ChildProcess> {
  const child = spawnService(
    PORTS[side],
    { DATABASE_URL: dbUrl, DEMO_CATALOGUE: 'true', PUBLIC_BASE_URL: 'http://127.0.0.1', LOG_LEVEL: 'warn' },
    cwd,
  );
  const started = Date.now();
  if (await untilHealthy(origin(side), 2400, child)) {
    console.log(`${side} instance healthy after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return child;
  }
  if (child.exitCode !== null) throw new Error(`the ${side} instance exited (${child.exitCode})`);
  throw new Error(`the ${side} instance did not start`);
}

/** What each instance answered, by kind of request: status counts, and requests that got no answer. */
const tally = new Map<string, Map<string, number>>();
function count(side: Side, kind: string, outcome: string): void {
  const key = `${side} ${kind}`;
  const row = tally.get(key) ?? new Map<string, number>();
  row.set(outcome, (row.get(outcome) ?? 0) + 1);
  tally.set(key, row);
}
let failures = 0;

async function call(side: Side, kind: string, path: string, init: RequestInit = {}): Promise<Response | undefined> {
  try {
    const res = await fetch(`${origin(side)}${path}`, { redirect: 'manual', ...init });
    count(side, kind, String(res.status));
    if (res.status >= 500) failures++;
    return res;
  } catch (err) {
    count(side, kind, `no answer (${(err as Error).message})`);
    failures++;
    return undefined;
  }
}

interface World {
  sessionIds: string[];
  booked: { side: Side; sessionId: string; path: string }[];
  adminKey?: string;
  tokens: Partial<Record<Side, string>>;
  n: number;
}

async function book(world: World, side: Side): Promise<void> {
  const sessionId = world.sessionIds[world.n % world.sessionIds.length] as string;
  const i = world.n++;
  // As a browser: the page, then its form posted back, with the form's token and cookie when the
  // release's page has them (releases before the cacheable pages put one in the form).
  const page = await call(side, 'session page', `/stages/${sessionId}`);
  const html = (await page?.text()) ?? '';
  const token = /name="formToken" value="([^"]+)"/.exec(html)?.[1];
  const cookie = page?.headers.get('set-cookie')?.split(';')[0];
  const res = await call(side, 'booking', `/stages/${sessionId}/reservation`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams({
      ...(token ? { formToken: token } : {}),
      website: '',
      firstName: 'Camille',
      lastName: 'Martin',
      email: `rolling${i}@example.org`,
      phone: `06 00 ${String(Math.floor(i / 100) % 100).padStart(2, '0')} 00 ${String(i % 100).padStart(2, '0')}`,
      reason: 'voluntary',
      consent: 'yes',
    }),
  });
  const location = res?.headers.get('location');
  await res?.arrayBuffer();
  if (res?.status === 303 && location) world.booked.push({ side, sessionId, path: location.replace(/#.*$/, '') });
}

async function oauth(world: World, side: Side): Promise<void> {
  const reg = await call(side, 'oauth register', '/api/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: `rolling ${side}` }),
  });
  if (!reg?.ok) return;
  const { client_id, client_secret } = (await reg.json()) as { client_id: string; client_secret: string };
  const tok = await call(side, 'oauth token', '/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }),
  });
  if (tok?.ok) world.tokens[side] = ((await tok.json()) as { access_token: string }).access_token;
}

/** One round of everything on one instance; tokens and bookings cross over to the other. */
async function round(world: World, side: Side, other: Side | undefined): Promise<void> {
  const dept = ['69', '75', '13', '33', '59', '974'][world.n % 6];
  await call(side, 'search', `/api/stages?dept=${dept}&limit=5`).then((r) => r?.arrayBuffer());
  await call(side, 'home search', `/?dept=${dept}`).then((r) => r?.arrayBuffer());
  await book(world, side);
  if (world.adminKey) {
    const sessionId = world.sessionIds[(world.n + 3) % world.sessionIds.length] as string;
    await call(side, 'partner PATCH', `/api/admin/sessions/${sessionId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${world.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ priceEuros: 200 + (world.n % 50) }),
    }).then((r) => r?.arrayBuffer());
  }
  const token = world.tokens[other ?? side];
  if (token)
    await call(side, 'MCP with a token', '/api/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_stages', arguments: { dept, limit: 3 } },
      }),
    }).then((r) => r?.arrayBuffer());
}

async function traffic(world: World, sides: Side[], seconds: number, until?: Promise<unknown>): Promise<void> {
  const end = Date.now() + seconds * 1000;
  let done = false;
  until?.then(() => {
    done = true;
  });
  const lanes = sides.flatMap((side) =>
    [0, 1, 2].map(async () => {
      while (!done && (until || Date.now() < end))
        await round(
          world,
          side,
          sides.find((s) => s !== side),
        );
    }),
  );
  await Promise.all(lanes);
}

async function spots(sessionId: string, side: Side): Promise<{ onSale: number; held: number }> {
  const res = await fetch(`${origin(side)}/api/admin/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${world.adminKey}` },
  });
  const body = (await res.json()) as { spotsAvailable: number; heldHere?: number };
  return { onSale: body.spotsAvailable, held: body.heldHere ?? 0 };
}

const world: World = { sessionIds: [], booked: [], tokens: {}, n: 0 };

async function main(): Promise<void> {
  if (!existsSync('dist/server.js')) throw new Error('run npm run build first (npm run drill:rolling does)');
  const ref = previousRelease();
  console.log(`previous release: ${git('log', '-1', '--format=%h %s', ref).slice(0, 120)}`);
  console.log(`new release:      ${git('log', '-1', '--format=%h %s', 'HEAD').slice(0, 120)}`);
  const oldDir = buildOld(ref);
  const children: ChildProcess[] = [];
  await onServer(`drop database if exists ${NAME} with (force)`);
  await onServer(`create database ${NAME}`);
  try {
    // 1. The previous release alone, on its own schema.
    const old = await start('old', oldDir);
    children.push(old);
    // The sessions with the most places left, so that bookings go on being taken throughout.
    const list = (await (await fetch(`${origin('old')}/api/stages?dept=69&limit=100`)).json()) as {
      data: { id: string; spotsAvailable: number }[];
    };
    world.sessionIds = list.data
      .sort((a, b) => b.spotsAvailable - a.spotsAvailable)
      .slice(0, 30)
      .map((s) => s.id);
    await oauth(world, 'old');
    await traffic(world, ['old'], 3);

    // 2. The new release migrates the schema while the previous one serves.
    const starting = start('new', here);
    await traffic(world, ['old'], 0, starting);
    children.push(await starting);
    const database = await openDatabase({ kind: 'postgres', url: dbUrl });
    world.adminKey = (await createApiKey(database.db, { name: 'rolling drill', role: 'admin', centreId: null })).key;
    await database.close();
    const before = new Map(
      await Promise.all(world.sessionIds.map(async (id) => [id, await spots(id, 'new')] as const)),
    );
    const bookedBefore = new Map(
      world.sessionIds.map((id) => [id, world.booked.filter((b) => b.sessionId === id).length]),
    );

    // 3. Side by side.
    await oauth(world, 'new');
    await traffic(world, ['old', 'new'], SECONDS);

    // 4. The previous release drains and stops; the new one serves alone.
    const stopping = new Promise((r) => old.once('exit', r));
    old.kill('SIGTERM');
    await traffic(world, ['new'], 0, stopping);
    console.log(`old instance stopped (exit ${old.exitCode})`);
    await traffic(world, ['new'], 3);

    // Verdict on the places: every booking since the snapshot is held, and none was lost.
    let placesOk = true;
    for (const id of world.sessionIds) {
      const was = before.get(id) as { onSale: number; held: number };
      const now = await spots(id, 'new');
      const bookedSince = world.booked.filter((b) => b.sessionId === id).length - (bookedBefore.get(id) ?? 0);
      if (now.held - was.held !== bookedSince) placesOk = false;
      if (now.onSale < 0) placesOk = false;
    }
    const fromOld = world.booked.find((b) => b.side === 'old');
    const opened = fromOld ? await fetch(`${origin('new')}${fromOld.path}`) : undefined;
    const crossOk = opened?.status === 200 && (await opened.text()).includes('SRP-');

    console.log('\ninstance kind                 answers');
    for (const [key, row] of [...tally].sort())
      console.log(`${key.padEnd(30)}${[...row].map(([s, n]) => `${s}×${n}`).join('  ')}`);
    console.log(
      `\nbookings acknowledged: ${world.booked.length} (old ${world.booked.filter((b) => b.side === 'old').length}, new ${world.booked.filter((b) => b.side === 'new').length}); held places match: ${placesOk}; an old instance's booking opens on the new: ${crossOk}; 5xx or no answer: ${failures}`,
    );
    const ok = failures === 0 && placesOk && crossOk && world.booked.length > 0;
    console.log(ok ? 'ok: the previous release served throughout on the new schema' : 'FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await onServer(`drop database if exists ${NAME} with (force)`).catch(() => {});
    git('worktree', 'remove', '--force', oldDir);
  }
}

await main();
