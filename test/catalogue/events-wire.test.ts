import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
let port: number;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => t.close());

/** A change stream read as raw bytes from its socket, with the HTTP version given. */
function rawStream(httpVersion: '1.0' | '1.1') {
  const socket = net.connect(port, '127.0.0.1');
  let bytes = Buffer.alloc(0);
  socket.on('data', (b) => {
    bytes = Buffer.concat([bytes, b]);
  });
  socket.write(`GET /api/stages/events HTTP/${httpVersion}\r\nHost: 127.0.0.1\r\n\r\n`);
  return {
    get bytes() {
      return bytes;
    },
    async until(test: (text: string) => boolean, ms = 5000) {
      const end = Date.now() + ms;
      while (!test(bytes.toString('latin1'))) {
        if (Date.now() > end) throw new Error(`not seen in ${ms} ms: ${bytes.toString('latin1')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => socket.destroy(),
  };
}

/** A chunked body read strictly (RFC 9112 §7.1): each size line in hex, its bytes, CRLF; throws on anything else. */
function dechunk(body: Buffer): { text: string; chunks: number } {
  let at = 0;
  let text = '';
  let chunks = 0;
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at, 'latin1');
    if (eol < 0) break; // a chunk still on its way
    const sizeText = body.toString('latin1', at, eol);
    if (!/^[0-9a-f]+$/.test(sizeText)) throw new Error(`not a chunk size: ${JSON.stringify(sizeText)}`);
    const size = Number.parseInt(sizeText, 16);
    const start = eol + 2;
    if (body.length < start + size + 2) break;
    if (body.toString('latin1', start + size, start + size + 2) !== '\r\n') throw new Error('chunk not closed by CRLF');
    text += body.toString('utf8', start, start + size);
    chunks++;
    at = start + size + 2;
  }
  return { text, chunks };
}

const changePrice = (id: string, priceEuros: number) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/sessions/${id}`, headers: keys.admin, payload: { priceEuros } });

/**
 * The events of an unfiltered stream are handed to the socket as chunks framed once for every
 * stream (EventStream#writeChunk), not through the response's own write: on the wire they must be
 * what the response would have sent — a well-formed chunked body holding exactly the events.
 */
describe('the change stream on the wire', () => {
  it('is a well-formed chunked body over HTTP/1.1, each version one chunk, the same events as its text', async () => {
    const stream = rawStream('1.1');
    await stream.until((s) => s.includes('event: ready'));
    const before = t.app.catalogue.snapshot.version;
    expect((await changePrice(SESSIONS.lyonMar5.id, 243.5)).statusCode).toBe(200);
    expect((await changePrice(SESSIONS.parisMar12.id, 199)).statusCode).toBe(200);
    await stream.until((s) => s.includes(`id: ${before + 2}\n`));
    const raw = stream.bytes;
    const headEnd = raw.indexOf('\r\n\r\n');
    expect(raw.toString('latin1', 0, headEnd)).toMatch(/\r\ntransfer-encoding: chunked/i);
    const { text, chunks } = dechunk(raw.subarray(headEnd + 4));
    const sessionEvents = text.slice(text.indexOf('event: session'));
    const ev = (id: string, price: number, version: number) =>
      `event: session\ndata: {"id":"${id}","status":"available","spotsAvailable":${
        t.app.catalogue.snapshot.sessionsById.get(id)?.view.spotsAvailable
      },"priceEuros":${price},"version":${version}}\nid: ${version}\n\n`;
    expect(sessionEvents).toBe(
      ev(SESSIONS.lyonMar5.id, 243.5, before + 1) + ev(SESSIONS.parisMar12.id, 199, before + 2),
    );
    // The head's first chunk (retry, comment, ready), then one chunk per version.
    expect(chunks).toBe(3);
    stream.close();
  });

  it('is the events as they are over HTTP/1.0 (no chunked body)', async () => {
    const stream = rawStream('1.0');
    await stream.until((s) => s.includes('event: ready'));
    const before = t.app.catalogue.snapshot.version;
    expect((await changePrice(SESSIONS.lyonMar5.id, 244)).statusCode).toBe(200);
    await stream.until((s) => s.includes(`id: ${before + 1}\n`));
    const raw = stream.bytes.toString('latin1');
    const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(raw.slice(raw.indexOf('event: session'))).toMatch(
      new RegExp(
        `^event: session\\ndata: \\{"id":"${SESSIONS.lyonMar5.id}"[^\\n]*"priceEuros":244,[^\\n]*\\nid: ${before + 1}\\n\\n$`,
      ),
    );
    stream.close();
  });
});
