import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import {
  CatalogueSnapshot,
  type CentreRecord,
  DEPARTMENT_CHUNK,
  type SessionRecord,
  urlBuilder,
} from '../../src/catalogue/read-model.js';
import { searchStages } from '../../src/catalogue/search.js';
import { startInstant } from '../../src/core/clock.js';
import { referenceAll } from '../helpers/reference-search.js';
import { expectWellChunked, visible } from '../helpers/snapshot-shape.js';

const TODAY = '2026-11-23';
const URLS = urlBuilder('https://stages.example');

describe("a department's sessions, in chunks, change by change", () => {
  const demo = generateDemoCatalogue({ today: TODAY });
  const built = CatalogueSnapshot.build(1, new Date('2026-11-23T08:00:00Z'), demo.centres, demo.sessions, URLS);

  it("keeps each department's sessions and version as sessions leave one for another, a new one opens and a chunk thins out", () => {
    const now = new Date(startInstant(TODAY, '09:10', 'Europe/Paris'));
    const records = new Map(demo.sessions.map((r) => [r.id, r]));
    const centres = new Map(demo.centres.map((c) => [c.id, c]));
    let snapshot = built;
    const apply = (sessions: [string, SessionRecord | null][], newCentres: CentreRecord[] = []) => {
      for (const [id, r] of sessions) {
        if (r) records.set(id, r);
        else records.delete(id);
      }
      for (const c of newCentres) centres.set(c.id, c);
      snapshot = snapshot.apply({
        version: snapshot.version + 1,
        updatedAt: new Date(Date.parse('2026-11-23T08:00:00Z') + snapshot.version * 1000),
        centres: new Map(newCentres.map((c) => [c.id, c])),
        sessions: new Map(sessions),
      });
      const fresh = CatalogueSnapshot.build(
        snapshot.version,
        snapshot.updatedAt,
        [...centres.values()],
        [...records.values()],
        URLS,
      );
      expectWellChunked(snapshot);
      expect(visible(snapshot)).toEqual(visible(fresh));
    };
    const searched = (dept: string) =>
      searchStages(snapshot, { limit: 100, includeUnavailable: true, dept }, now).entries.map((e) => e.record.id);

    // Every session of the smallest department moves to a Paris centre: the one empties, the other grows.
    const [small] = [...built.departments].sort(([, a], [, b]) => a.sessions.length - b.sessions.length)[0] ?? [];
    const parisCentre = demo.centres.find((c) => c.deptCode === '75') as CentreRecord;
    const leaving = [...(built.deptSessions(small as string) ?? [])].map((e) => e.record);
    expect(leaving.length).toBeGreaterThan(0);
    apply(leaving.map((r) => [r.id, { ...r, centreId: parisCentre.id }]));
    expect(snapshot.deptSessions(small as string)?.length).toBe(0);
    expect(snapshot.deptSessions('75')?.length).toBe((built.deptSessions('75')?.length ?? 0) + leaving.length);
    expect([snapshot.deptVersion(small as string), snapshot.deptVersion('75'), snapshot.deptVersion('69')]).toEqual([
      2, 2, 1,
    ]);
    expect(searched(small as string)).toEqual([]);

    // A centre in a department the catalogue never had, with one session.
    const centre: CentreRecord = {
      ...parisCentre,
      id: '77000000-0000-4000-8000-000000000001',
      slug: 'nouveau',
      deptCode: '975',
    };
    const session: SessionRecord = {
      ...(leaving[0] as SessionRecord),
      id: '77000000-0000-4000-8000-000000000002',
      centreId: centre.id,
    };
    expect(built.departments.has('975')).toBe(false);
    apply([[session.id, session]], [centre]);
    expect([snapshot.deptVersion('975'), snapshot.deptVersion('75'), snapshot.deptVersion(small as string)]).toEqual([
      3, 2, 2,
    ]);
    expect(searched('975')).toEqual([session.id]);

    // Paris's second chunk thinned out below a quarter of its size: joined to the first.
    const chunks = snapshot.deptSessions('75')?.chunks ?? [];
    const second = chunks[1] ?? [];
    expect(second.length).toBeGreaterThan(DEPARTMENT_CHUNK / 4);
    apply(second.slice(0, second.length - DEPARTMENT_CHUNK / 4 + 1).map((e) => [e.record.id, null]));
    expect(snapshot.deptSessions('75')?.chunks.length).toBe(chunks.length - 1);
    expect(snapshot.deptVersion('75')).toBe(4);
    const all = referenceAll(snapshot, { limit: 100, includeUnavailable: true, dept: '75' }, now).all;
    expect(searched('75')).toEqual(all.slice(0, 100));
  });
});
