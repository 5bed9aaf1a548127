import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { ListBodies } from '../../src/catalogue/list-body.js';
import { CatalogueSnapshot, sessionJson, urlBuilder } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { type SearchResult, searchStages } from '../../src/catalogue/search.js';
import { startInstant } from '../../src/core/clock.js';

const TODAY = '2026-11-23';
const PLATFORM = 'stages.example';

/** The answer as JSON.stringify writes it from the sessions' views: what every list answer must be, byte for byte. */
function plainBody(result: SearchResult, updatedAt: string): string {
  const data = result.entries.map((e, i) =>
    result.distances ? { ...e.view, distanceKm: result.distances[i] as number } : e.view,
  );
  return JSON.stringify({
    object: 'list',
    count: result.entries.length,
    total: result.total,
    description: result.description,
    platform: PLATFORM,
    updatedAt,
    data,
    ...(result.nextCursor ? { nextCursor: result.nextCursor } : {}),
  });
}

/** The weak ETag computed from each session's JSON as one piece (what clients have kept across releases). */
function plainEtag(result: SearchResult): string {
  const head = `{"object":"list","count":${result.entries.length},"total":${result.total},"description":${JSON.stringify(result.description)},"platform":${JSON.stringify(PLATFORM)},"updatedAt":"`;
  const tail = result.nextCursor ? `],"nextCursor":"${result.nextCursor}"}` : ']}';
  let said = head + tail;
  result.entries.forEach((e, i) => {
    said += hash('sha1', JSON.stringify(e.view), 'base64url').slice(0, 16);
    if (result.distances) said += `,"distanceKm":${result.distances[i]}}`;
  });
  return `W/"${hash('sha1', said, 'base64url').slice(0, 22)}"`;
}

describe('list answers from the prebuilt session and centre parts', () => {
  const data = generateDemoCatalogue({ today: TODAY, scale: 1 });
  const snapshot = CatalogueSnapshot.build(
    1,
    new Date(),
    data.centres,
    data.sessions,
    urlBuilder('https://stages.example'),
  );
  const now = new Date(startInstant(TODAY, '09:10', 'Europe/Paris'));

  it('are JSON.stringify of the views, byte for byte, with the ETag of the whole JSON (accents, distances, cursors)', () => {
    const bodies = new ListBodies();
    const queries: SearchQuery[] = [
      { limit: 20, includeUnavailable: false },
      { limit: 100, includeUnavailable: true, region: 'Auvergne-Rhône-Alpes' },
      { limit: 50, includeUnavailable: false, near: 'Lyon', radiusKm: 80, sort: 'distance' },
      { limit: 30, includeUnavailable: false, near: '48.85,2.35', sort: 'price' },
      { limit: 5, includeUnavailable: false, city: 'ambérieu' },
      { limit: 1, includeUnavailable: false, dept: '2A' },
    ];
    let accented = 0;
    for (const query of queries) {
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const result = searchStages(snapshot, { ...query, ...(cursor ? { cursor } : {}) }, now);
        const updatedAt = '2026-11-23T08:10:00.000Z';
        const body = bodies.write(result, PLATFORM, updatedAt);
        const text = body.bytes.toString();
        expect(text, JSON.stringify(query)).toBe(plainBody(result, updatedAt));
        expect(body.etag, JSON.stringify(query)).toBe(plainEtag(result));
        for (const e of result.entries) expect(sessionJson(e).toString()).toBe(JSON.stringify(e.view));
        if (/[^\x20-\x7e]/.test(text)) accented++;
        cursor = result.nextCursor;
        if (!cursor) break;
      }
    }
    expect(accented).toBeGreaterThan(0);
  });
});
