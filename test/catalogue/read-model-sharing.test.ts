import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import {
  type CatalogueDelta,
  CatalogueSnapshot,
  type SessionRecord,
  urlBuilder,
} from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { searchStages } from '../../src/catalogue/search.js';
import { addDays, startInstant } from '../../src/core/clock.js';
import { random } from '../helpers/random.js';
import { referenceAll } from '../helpers/reference-search.js';
import { expectWellChunked, visible } from '../helpers/snapshot-shape.js';

const TODAY = '2026-11-23';
const URLS = urlBuilder('https://stages.example');

describe('a snapshot derived change by change shares what did not change', () => {
  const demo = generateDemoCatalogue({ today: TODAY });
  const built = CatalogueSnapshot.build(1, new Date('2026-11-23T08:00:00Z'), demo.centres, demo.sessions, URLS);

  it("copies one chunk of the list of all, one of its department's and one list per centre for a changed price", () => {
    const paris = built.deptSessions('75');
    expect(paris?.chunks.length).toBeGreaterThan(2);
    const s = [...(paris ?? [])][300]?.record as SessionRecord;
    const next = built.apply({
      version: 2,
      updatedAt: new Date('2026-11-23T08:00:01Z'),
      centres: new Map(),
      sessions: new Map([[s.id, { ...s, priceCents: s.priceCents + 100 }]]),
    });
    expect(built.sessions.chunks.length).toBeGreaterThan(10);
    const shared = next.sessions.chunks.filter((c) => built.sessions.chunks.includes(c)).length;
    expect(shared).toBe(built.sessions.chunks.length - 1);
    const centre = built.sessionsById.get(s.id)?.centre;
    expect(centre?.view.deptCode).toBe('75');
    for (const [code, department] of next.departments) {
      const before = built.departments.get(code);
      if (code !== '75') expect(department).toBe(before);
      else {
        expect(department.version).toBe(2);
        const kept = department.sessions.chunks.filter((c) => before?.sessions.chunks.includes(c)).length;
        expect(kept).toBe(department.sessions.chunks.length - 1);
      }
    }
    expect([next.deptVersion('75'), next.deptVersion('69')]).toEqual([2, 1]);
    for (const [id, list] of next.sessionsByCentre) {
      if (id === s.centreId) expect(list).not.toBe(built.sessionsByCentre.get(id));
      else expect(list).toBe(built.sessionsByCentre.get(id));
    }
  });

  it('gives exactly what a fresh build gives after 3,000 changes one by one and a few large ones, searches included', () => {
    const rnd = random(20261127);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    const records = new Map(demo.sessions.map((s) => [s.id, s]));
    const centreIds = demo.centres.map((c) => c.id);
    const days = [...new Set(demo.sessions.map((s) => s.day1))];
    let snapshot = built;
    let version = 1;
    const apply = (sessions: Map<string, SessionRecord | null>) => {
      version++;
      const delta: CatalogueDelta = {
        version,
        updatedAt: new Date(Date.parse('2026-11-23T08:00:00Z') + version * 1000),
        centres: new Map(),
        sessions,
      };
      for (const [id, r] of sessions) {
        if (r) records.set(id, r);
        else records.delete(id);
      }
      snapshot = snapshot.apply(delta);
    };
    const changed = (s: SessionRecord, i: number): SessionRecord | null => {
      const r = rnd();
      if (r < 0.35) return { ...s, priceCents: Math.max(0, s.priceCents + Math.round((rnd() - 0.5) * 8000)) };
      if (r < 0.5) return { ...s, spotsAvailable: Math.floor(rnd() * 5) };
      if (r < 0.65) {
        const day1 = pick(days);
        return { ...s, day1, day2: addDays(day1, 1), centreId: pick(centreIds) };
      }
      if (r < 0.75) return { ...s, status: s.status === 'cancelled' ? 'scheduled' : 'cancelled' };
      if (r < 0.85) return null;
      const day1 = pick(days);
      return {
        ...s,
        id: `72000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        courseNumber: `NEW-${i}`,
        day1,
        day2: addDays(day1, 1),
        centreId: pick(centreIds),
      };
    };
    const ids = () => [...records.keys()];
    let pool = ids();
    for (let i = 0; i < 3000; i++) {
      if (i % 500 === 0) pool = ids();
      const s = records.get(pick(pool));
      if (!s) continue;
      const next = changed(s, i);
      apply(new Map([[next?.id ?? s.id, next]]));
    }
    // Large deltas: 1,500 sessions at once (merged rather than spliced), then the 3,000 first of
    // the list deleted one by one (chunks emptied and joined) and 2,500 sessions added on one day
    // (a chunk split).
    const many = new Map<string, SessionRecord | null>();
    for (const id of ids().slice(0, 1500)) many.set(id, changed(records.get(id) as SessionRecord, 10_000 + many.size));
    apply(many);
    for (const e of [...snapshot.sessions].slice(0, 3000)) apply(new Map([[e.record.id, null]]));
    const crowded = new Map<string, SessionRecord>();
    const model = records.values().next().value as SessionRecord;
    for (let i = 0; i < 2500; i++) {
      const id = `73000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      crowded.set(id, {
        ...model,
        id,
        courseNumber: `DAY-${i}`,
        day1: '2027-03-02',
        day2: '2027-03-03',
        status: 'scheduled',
      });
    }
    apply(crowded);

    const fresh = CatalogueSnapshot.build(version, snapshot.updatedAt, demo.centres, [...records.values()], URLS);
    expectWellChunked(snapshot);
    expect(visible(snapshot)).toEqual(visible(fresh));

    // Searches over the list of all, page after page across chunks, and others, agree with a fresh build's.
    const now = new Date(startInstant(TODAY, '09:10', 'Europe/Paris'));
    const queries: SearchQuery[] = [
      { limit: 100, includeUnavailable: false, from: '2027-02-20', to: '2027-03-10' },
      { limit: 100, includeUnavailable: true, from: '2027-03-01', to: '2027-03-04' },
      { limit: 20, includeUnavailable: false },
      { limit: 20, includeUnavailable: false, sort: 'price', maxPrice: 150 },
      { limit: 20, includeUnavailable: false, region: 'Bretagne' },
      { limit: 20, includeUnavailable: false, dept: '75' },
      { limit: 7, includeUnavailable: true, dept: '59', from: '2027-01-10', to: '2027-02-20' },
      { limit: 30, includeUnavailable: false, region: 'Île-de-France', from: '2027-01-05' },
      { limit: 20, includeUnavailable: false, region: 'Hauts-de-France', sort: 'price' },
      { limit: 20, includeUnavailable: false, city: 'lyon', days: [6] },
    ];
    for (const query of queries) {
      const all = referenceAll(fresh, query, now).all;
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = searchStages(snapshot, { ...query, ...(cursor ? { cursor } : {}) }, now);
        expect(page.total, JSON.stringify(query)).toBe(all.length);
        walked.push(...page.entries.map((e) => e.record.id));
        cursor = page.nextCursor;
      } while (cursor && walked.length < 6000);
      expect(walked, JSON.stringify(query)).toEqual(all.slice(0, walked.length));
      if (!cursor) expect(walked.length).toBe(all.length);
    }
  });

  it('finds a new centre’s sessions in a town search made before, and keeps finding them after changes to sessions', () => {
    const now = new Date(startInstant(TODAY, '09:10', 'Europe/Paris'));
    const model = demo.centres[0] as (typeof demo.centres)[number];
    const query: SearchQuery = { limit: 100, includeUnavailable: true, city: model.city };
    const ids = (s: CatalogueSnapshot) => searchStages(s, query, now).entries.map((e) => e.record.id);
    expect(ids(built).length).toBeGreaterThan(0);
    const centre = {
      ...model,
      id: '76000000-0000-4000-8000-000000000001',
      slug: 'scope-test',
      agrementNumber: 'R2600000001',
    };
    const session = {
      ...(demo.sessions[0] as SessionRecord),
      id: '76000000-0000-4000-8000-000000000002',
      centreId: centre.id,
      day1: '2026-11-25',
      day2: '2026-11-26',
    };
    const withCentre = built.apply({
      version: 2,
      updatedAt: new Date('2026-11-23T08:00:01Z'),
      centres: new Map([[centre.id, centre]]),
      sessions: new Map([[session.id, session]]),
    });
    expect(ids(withCentre)).toContain(session.id);
    expect(ids(withCentre)).toEqual(referenceAll(withCentre, query, now).all.slice(0, 100));
    // A later change to that session alone: the centres are the same, the answer follows the session.
    const moved = withCentre.apply({
      version: 3,
      updatedAt: new Date('2026-11-23T08:00:02Z'),
      centres: new Map(),
      sessions: new Map([[session.id, { ...session, status: 'cancelled' as const }]]),
    });
    expect(moved.centresById).toBe(withCentre.centresById);
    expect(ids(moved)).not.toContain(session.id);
    expect(ids(moved)).toEqual(referenceAll(moved, query, now).all.slice(0, 100));
  });
});
