import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../../helpers/admin-keys.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../../helpers/fixtures.js';

/*
 * The drill's body: 32 MB of `[0,0,…]`, under IMPORT_MAX_MB, 16.7 million records. It once took
 * 4.9 GB and the instance's life. Heavy to build and send, and the database plays no part: this
 * file runs in the pglite project only (vitest.config.ts, ONCE).
 */

let t: TestApp;
let partner: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE });
  partner = (await keysFor(t.app, CENTRES.lyon.id)).partner;
});
afterAll(() => t.close());

const RECORDS = 16_777_000;
/** `[0,0,…,0<end>`: RECORDS zeros, then `end`. */
const zeros = (end: string) => `[${'0,'.repeat(RECORDS - 1)}0${end}`;

const post = (payload: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/admin/import',
    headers: { ...partner, 'content-type': 'application/json' },
    payload,
  });

describe('an import of 16.7 million records under IMPORT_MAX_MB', () => {
  it('is refused with 413 naming the record limit', async () => {
    const body = zeros(']');
    expect(body.length).toBeLessThanOrEqual(t.app.config.importMaxBytes);
    const res = await post(body);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      status: 413,
      code: 'too_many_records',
      detail: expect.stringMatching(/more than 50000 records.*IMPORT_MAX_RECORDS/),
    });
    expect(res.body.length).toBeLessThan(1000);
  });

  it('is refused at the record past the limit, before the rest of the body is read', async () => {
    // The same body broken at its very end: an import that read every record first would call it
    // malformed (400); one that stops at record 20,001 never sees the break.
    const res = await post(zeros(',oops]'));
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('too_many_records');
  });
});
