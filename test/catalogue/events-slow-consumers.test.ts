import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/catalogue/read-model.js';
import { keysFor, NEW_CENTRE } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';
import { openStream } from '../helpers/sse.js';

// A centre with many sessions: each change of the centre changes them all, one version of ~400 KB of events.
const BIG = { ...NEW_CENTRE, id: '00000000-0000-4000-8000-0000000000b1' };
const SESSION_COUNT = 3000;
const sessions: SessionRecord[] = Array.from({ length: SESSION_COUNT }, (_, i) => {
  const day = new Date(Date.UTC(2030, 3, 1 + (i % 300)));
  const day1 = day.toISOString().slice(0, 10);
  day.setUTCDate(day.getUTCDate() + 1);
  return {
    id: `20000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    centreId: BIG.id,
    courseNumber: `${BIG.agrementNumber}-${i}`,
    day1,
    day2: day.toISOString().slice(0, 10),
    startTime: '08:30',
    endTime: '16:30',
    priceCents: 20000 + i,
    capacity: 20,
    spotsAvailable: 10,
  };
});

const STREAM_MAX_KB = 64;
let t: TestApp;
let base: string;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({
    catalogue: { centres: [...FIXTURE_CATALOGUE.centres, BIG], sessions: [...FIXTURE_CATALOGUE.sessions, ...sessions] },
    clock: frozenClock(FIXTURE_NOW),
    env: { EVENTS_STREAM_MAX_BUFFER_KB: String(STREAM_MAX_KB), METRICS_PORT: '9464' },
  });
  keys = await keysFor(t.app, BIG.id);
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

let phone = 0;
/** Changes the big centre through the operator API: every one of its sessions is in the next version. */
async function changeCentre() {
  const { id, ...body } = BIG;
  const res = await t.app.inject({
    method: 'PUT',
    url: `/api/admin/centres/${id}`,
    headers: keys.admin,
    payload: {
      ...body,
      phone: `04 72 00 ${String(Math.floor(++phone / 100) % 100).padStart(2, '0')} ${String(phone % 100).padStart(2, '0')}`,
    },
  });
  expect(res.statusCode).toBe(200);
  return t.app.catalogue.snapshot.version;
}

/** The bytes of a version's events, as the stream sent them. */
const bytesOf = (list: { lastId?: string }[]) =>
  list.reduce(
    (n, { lastId, ...s }) =>
      n + Buffer.byteLength(`event: session\ndata: ${JSON.stringify(s)}\n\n`) + (lastId ? `id: ${lastId}\n`.length : 0),
    0,
  );

/** Each session's last state as a stream told it. */
const latest = (list: { id: string; version: number }[]) => new Map(list.map((s) => [s.id, s]));

describe('a change-stream subscriber that never reads', () => {
  it('is ended once past its bound, while the server holds a bounded number of bytes; a reader gets everything; both resume', async () => {
    const reader = await openStream(`${base}/api/stages/events`);
    const silent = await openStream(`${base}/api/stages/events`, { silent: true });
    await reader.until((e) => e.some((x) => x.retry));

    let largest = 0;
    const versions: number[] = [];
    while (t.app.eventStreams.stats().ended.too_slow === 0 && versions.length < 60) {
      const version = await changeCentre();
      versions.push(version);
      const stats = t.app.eventStreams.stats();
      largest = Math.max(largest, stats.largestStreamBytes);
      await reader.until(() => reader.lastEventId() === String(version), 10_000);
    }
    expect(t.app.eventStreams.stats().ended).toEqual({ too_slow: 1, server_busy: 0 });
    // No stream was ever further behind than its bound and the version just published.
    const got = reader.sessions();
    const versionBytes = Math.max(...versions.map((v) => bytesOf(got.filter((s) => s.version === v))));
    expect(largest).toBeLessThanOrEqual(STREAM_MAX_KB * 1024 + versionBytes);
    expect(t.app.eventStreams.stats().encoded).toBe(versions.length);
    const metrics = await t.app.metrics?.metrics();
    expect(metrics).toContain('stages_events_overflow_total{reason="too_slow"} 1');
    expect(metrics).toMatch(/stages_events_buffered_bytes \d+/);

    // The reader received every session of every version, each version closed by its id.
    expect(got).toHaveLength(SESSION_COUNT * versions.length);
    expect(got.filter((s) => s.lastId).map((s) => Number(s.lastId))).toEqual(versions);

    // The silent client reads at last: whole versions up to where it was ended (then, if the server
    // could still flush it, the overflow event), then the end of the stream.
    silent.read();
    await silent.ended;
    const overflow = silent.events.find((e) => e.event === 'overflow');
    if (overflow)
      expect(JSON.parse(overflow.data as string)).toEqual({ reason: 'too_slow', lastEventId: silent.lastEventId() });
    const lastSeen = silent.lastEventId() as string;
    expect(Number(lastSeen)).toBeLessThan(versions.at(-1) as number);

    // It reconnects with Last-Event-ID, as an EventSource does, and catches up from the change log.
    const resumed = await openStream(`${base}/api/stages/events`, { headers: { 'last-event-id': lastSeen } });
    const now = t.app.catalogue.snapshot.version;
    await resumed.until(() => resumed.lastEventId() === String(now), 10_000);
    const caughtUp = latest([...silent.sessions(), ...resumed.sessions()]);
    const truth = latest(got);
    expect(caughtUp.size).toBe(truth.size);
    for (const [id, s] of truth)
      expect({ ...caughtUp.get(id), lastId: undefined }).toEqual({ ...s, lastId: undefined });
    await resumed.close();
    await reader.close();
  });
});
