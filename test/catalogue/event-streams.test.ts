import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionEvents } from '../../src/catalogue/change-events.js';
import { EventStreams, type StreamLimits } from '../../src/catalogue/event-streams.js';
import { openStream } from '../helpers/sse.js';

const KB = 1024;

/** A version's events as the feed holds them: `count` session-like blocks, the last with the id. */
function versionBytes(version: number, size: number): Buffer {
  const data = 'x'.repeat(size - 40);
  return Buffer.from(`event: session\ndata: ${data}\nid: ${version}\n\n`);
}

let server: Server | undefined;
let streams: EventStreams | undefined;
afterEach(async () => {
  streams?.endAll();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A plain HTTP server whose every request becomes a stream of `streams`, from version 0 (`?session=` filters it). */
async function serve(limits: Partial<StreamLimits>) {
  const s = new EventStreams({
    maxPerAddress: 100,
    maxStreams: 100,
    maxStreamBytes: 64 * KB,
    maxTotalBytes: 64 * 1024 * KB,
    heartbeatMs: 60_000,
    ...limits,
  });
  streams = s;
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 2000\nid: 0\n\n');
    const session = new URL(req.url ?? '/', 'http://x').searchParams.get('session');
    const filter = session ? { sessionIds: new Set([session]), depts: new Set<string>() } : undefined;
    s.open(res, String(req.socket.remotePort), 0, filter).start(undefined, 0, '0');
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { streams: s, url };
}

/** Publishes versions of `size` bytes until `done` (each once the reader has it), at most `max`. */
async function publishUntil(
  s: EventStreams,
  reader: Awaited<ReturnType<typeof openStream>>,
  size: number,
  done: () => boolean,
  max = 200,
) {
  const peaks = { largest: 0, total: 0 };
  let version = 0;
  while (!done() && version < max) {
    version++;
    s.publish(version, () => versionBytes(version, size));
    const stats = s.stats();
    peaks.largest = Math.max(peaks.largest, stats.largestStreamBytes);
    peaks.total = Math.max(peaks.total, stats.bufferedBytes);
    await reader.until(() => reader.lastEventId() === String(version), 10_000);
  }
  return { version, peaks };
}

describe('the open event streams', () => {
  it('encode each version once, whatever the number of streams, and only while one is open', async () => {
    const { streams: s, url } = await serve({});
    let encoded = 0;
    const encode = (version: number) => () => {
      encoded++;
      return versionBytes(version, 200);
    };
    s.publish(1, encode(1));
    expect(encoded).toBe(0);

    const readers = await Promise.all(Array.from({ length: 30 }, () => openStream(url)));
    await Promise.all(readers.map((r) => r.until(() => r.lastEventId() === '0')));
    for (let v = 2; v <= 6; v++) s.publish(v, encode(v));
    await Promise.all(readers.map((r) => r.until(() => r.lastEventId() === '6')));
    expect(encoded).toBe(5);
    expect(s.stats().encoded).toBe(5);
    for (const r of readers)
      expect(r.events.filter((e) => e.event === 'session').map((e) => e.id)).toEqual(['2', '3', '4', '5', '6']);
    // Every stream has sent everything: the feed keeps nothing.
    await new Promise((r) => setTimeout(r, 20));
    s.enforce();
    expect(s.stats().feedBytes).toBe(0);
    await Promise.all(readers.map((r) => r.close()));
  });

  it('end a stream that does not read once it is past its bound, with an overflow event, and leave readers be', async () => {
    const size = 100 * KB;
    const { streams: s, url } = await serve({ maxStreamBytes: 64 * KB, heartbeatMs: 60_000 });
    const reader = await openStream(url);
    const silent = await openStream(url, { silent: true });
    await reader.until(() => reader.lastEventId() === '0');

    const { version, peaks } = await publishUntil(s, reader, size, () => s.stats().ended.too_slow > 0);
    expect(s.stats().ended).toEqual({ too_slow: 1, server_busy: 0 });
    // What the server held for the silent stream stayed within its bound and the version just published.
    expect(peaks.largest).toBeLessThanOrEqual(64 * KB + size);
    expect(s.stats().streams).toBeGreaterThanOrEqual(1);

    // The silent client reads at last: whole versions, then the overflow event naming the last of them.
    silent.read();
    await silent.ended;
    const last = silent.events.at(-1);
    expect(last?.event).toBe('overflow');
    const overflow = JSON.parse(last?.data as string);
    expect(overflow).toEqual({ reason: 'too_slow', lastEventId: silent.lastEventId() });
    expect(Number(overflow.lastEventId)).toBeLessThan(version);
    const ids = silent.events.filter((e) => e.event === 'session').map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));

    // The reader got every version, in order, and stays open.
    s.publish(version + 1, () => versionBytes(version + 1, size));
    await reader.until(() => reader.lastEventId() === String(version + 1));
    const got = reader.events.filter((e) => e.event === 'session').map((e) => Number(e.id));
    expect(got).toEqual(Array.from({ length: version + 1 }, (_, i) => i + 1));
    expect(s.stats().streams).toBe(1);
    await reader.close();
  });

  it('keep all streams under their budget, ending first the one furthest behind', async () => {
    const size = 100 * KB;
    const { streams: s, url } = await serve({ maxStreamBytes: 64 * 1024 * KB, maxTotalBytes: 1024 * KB });
    const reader = await openStream(url);
    await reader.until(() => reader.lastEventId() === '0');
    const early = await openStream(url, { silent: true });
    // The early stream's socket is full and it holds bytes of its own before the late one opens.
    const first = await publishUntil(s, reader, size, () => s.stats().bufferedBytes > 200 * KB);
    const late = await openStream(url, { silent: true });
    const { version, peaks } = await publishUntil(s, reader, size, () => s.stats().ended.server_busy > 0);
    expect(s.stats().ended).toEqual({ too_slow: 0, server_busy: 1 });
    // The budget, and the version just published, once per stream (the same bytes, held once).
    expect(Math.max(first.peaks.total, peaks.total)).toBeLessThanOrEqual(1024 * KB + 3 * size);

    early.read();
    await early.ended;
    expect(JSON.parse(early.events.at(-1)?.data as string)).toMatchObject({ reason: 'server_busy' });
    late.read();
    await late.until(() => late.lastEventId() === String(version));
    expect(late.events.some((e) => e.event === 'overflow')).toBe(false);
    await late.close();
    await reader.close();
  });

  it('send a comment line to idle streams every heartbeat, not to one whose client is not reading', async () => {
    const { streams: s, url } = await serve({ heartbeatMs: 20, maxStreamBytes: 64 * 1024 * KB });
    const reader = await openStream(url);
    await reader.until((e) => e.filter((x) => x.comment === 'heartbeat').length >= 3);
    await openStream(url, { silent: true });
    await publishUntil(s, reader, 100 * KB, () => s.stats().largestStreamBytes > 200 * KB);
    // The silent stream now waits for its socket: heartbeats add nothing to what it holds.
    const held = s.stats().largestStreamBytes;
    const beats = reader.events.filter((x) => x.comment === 'heartbeat').length;
    await reader.until((e) => e.filter((x) => x.comment === 'heartbeat').length >= beats + 3);
    expect(s.stats().largestStreamBytes).toBeLessThanOrEqual(held);
    expect(s.stats().ended).toEqual({ too_slow: 0, server_busy: 0 });
    await reader.close();
  });

  it('give a filtered stream its events out of the shared bytes: encoded once, the others sent them unchanged', async () => {
    const { streams: s, url } = await serve({});
    const all = await Promise.all([openStream(url), openStream(url)]);
    const one = await openStream(`${url}?session=b`);
    await Promise.all([...all, one].map((r) => r.until(() => r.lastEventId() === '0')));
    const version = (v: number, ids: string[]) =>
      sessionEvents(
        ids.map((id) => ({
          change: { id, status: 'available' as const, spotsAvailable: v, priceEuros: 200, version: v },
          dept: '69',
        })),
      );
    const publish = (v: number, ids: string[]) => s.publish(v, () => version(v, ids));
    publish(1, ['a', 'b', 'c']);
    publish(2, ['a', 'c']);
    publish(3, ['b']);
    await Promise.all(all.map((r) => r.until(() => r.lastEventId() === '3')));
    await one.until(() => one.lastEventId() === '3');
    expect(s.stats().encoded).toBe(3);
    // The unfiltered streams got every event; the filtered one b's, each closing its version with the id.
    for (const r of all)
      expect(r.sessions().map((e) => [e.id, e.lastId])).toEqual([
        ['a', undefined],
        ['b', undefined],
        ['c', '1'],
        ['a', undefined],
        ['c', '2'],
        ['b', '3'],
      ]);
    expect(one.sessions().map((e) => [e.id, e.version, e.lastId])).toEqual([
      ['b', 1, '1'],
      ['b', 3, '3'],
    ]);
    await Promise.all([...all, one].map((r) => r.close()));
  });
});
