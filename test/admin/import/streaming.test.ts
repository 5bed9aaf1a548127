import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor, NEW_CENTRE } from '../../helpers/admin-keys.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../../helpers/fixtures.js';

/*
 * An import is read as its body arrives: refused at the record past IMPORT_MAX_RECORDS without
 * waiting for the rest, refused past IMPORT_MAX_MB whether or not the body says its length, and
 * read right however the bytes are cut (a character split between two chunks, a number or a key
 * at the end of one).
 */

let t: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, env: { IMPORT_MAX_RECORDS: '5', IMPORT_MAX_MB: '1' } });
  admin = (await keysFor(t.app, CENTRES.lyon.id)).admin;
});
afterAll(() => t.close());

const MB = 1024 * 1024;
const TYPES = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;

/** A body that goes on as long as it is read, counting the bytes taken from it. */
/**
 * What the streams between the test's body and the parser may have read ahead when it stops: a few
 * of their buffers (64 KB each since Node 22; Node 24 read 128 KB past the limit, Node 20 less).
 * An endless body read to its end would never stop at all.
 */
const READ_AHEAD = 256 * 1024;

function endless(head: string, repeat: string) {
  const counter = { bytes: 0 };
  let first = true;
  const stream = new Readable({
    read() {
      const chunk = Buffer.from(first ? head : repeat.repeat(4096));
      first = false;
      counter.bytes += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, counter };
}

/** `text` as a stream of one-byte chunks: every character of more than one byte is cut. */
const byteByByte = (text: string) => Readable.from([...Buffer.from(text)].map((b) => Buffer.from([b])));

const post = (payload: string | Readable, type: keyof typeof TYPES, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/admin/import',
    headers: { ...admin, 'content-type': TYPES[type], ...headers },
    payload,
  });

describe('an import body', () => {
  it('is refused at the record past the limit while more is still arriving', async () => {
    for (const [type, head, repeat] of [
      ['json', '[', '0,'],
      ['ndjson', '', '{}\n'],
      ['csv', 'type,id\n', 'session,x\n'],
    ] as const) {
      const { stream, counter } = endless(head, repeat);
      const res = await post(stream, type);
      expect(res.statusCode, `${type}: ${res.body}`).toBe(413);
      expect(res.json().code, type).toBe('too_many_records');
      // What followed the refusal was read and dropped, never more than IMPORT_MAX_MB of it: a
      // reader that waited for the body's end would still be reading.
      expect(counter.bytes, type).toBeLessThan(2 * MB + READ_AHEAD);
    }
  });

  it('is refused past IMPORT_MAX_MB, announced or not', async () => {
    const big = `[${' '.repeat(MB)}]`;
    const announced = await post(big, 'json');
    expect(announced.statusCode).toBe(413);
    expect(announced.json()).toMatchObject({ code: 'body_too_large' });

    // Sent in chunks with no Content-Length: counted as it arrives.
    const { stream, counter } = endless('[', ' ');
    const chunked = await post(stream, 'json');
    expect(chunked.statusCode).toBe(413);
    expect(chunked.json()).toMatchObject({
      code: 'body_too_large',
      detail: 'The import is larger than 1 MB, the most one import takes (IMPORT_MAX_MB); nothing was written.',
    });
    expect(counter.bytes).toBeLessThan(MB + READ_AHEAD);
  });

  it('is read right in every format when every byte arrives alone', async () => {
    const name = 'Stage Élan — Besançon « Sûreté » 🚗';
    const centre = (n: number) => ({
      ...NEW_CENTRE,
      id: `41000000-0000-4000-8000-00000000000${n}`,
      slug: `elan-besancon-${n}`,
      name,
      lat: 45.5 + n / 100,
      agrementNumber: `R24069001${20 + n}`,
    });
    const bodies = {
      json: JSON.stringify({ centres: [centre(1)], sessions: [] }),
      ndjson: `\n${JSON.stringify({ type: 'centre', ...centre(2) })}\n\n`,
      csv: [
        ['type', ...Object.keys(centre(3))].join(','),
        ['centre', ...Object.values(centre(3)).map((v) => `"${v}"`)].join(','),
      ].join('\r\n'),
    } as const;
    const arrays = JSON.stringify([{ type: 'centre', ...centre(4) }]);
    for (const [n, type, text] of [
      [1, 'json', bodies.json],
      [2, 'ndjson', bodies.ndjson],
      [3, 'csv', bodies.csv],
      [4, 'json', arrays],
    ] as const) {
      const res = await post(byteByByte(text), type);
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
      expect(res.json().centres.created, type).toBe(1);
      const stored = await t.app.inject({ url: `/api/admin/centres/${centre(n).id}`, headers: admin });
      expect(stored.json(), type).toMatchObject({ name, lat: centre(n).lat });
    }
  });

  it('names what is wrong with a body cut short, however it is cut', async () => {
    for (const text of ['[{"type": "centre"', '{"centres": [', '{"cent', '[1', '"just a string', '']) {
      const res = await post(byteByByte(text), 'json');
      expect(res.statusCode, text).toBe(400);
      expect(res.json().code, text).toBe('malformed_import');
    }
    expect((await post(byteByByte('"a string"'), 'json')).json().detail).toMatch(/^A JSON import is/);
  });
});
