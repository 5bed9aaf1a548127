import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPARTMENTS } from '../../src/catalogue/geography.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { searchStages } from '../../src/catalogue/search.js';
import { addDays, dateIn, startInstant } from '../../src/core/clock.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { random } from '../helpers/random.js';
import { referenceAll } from '../helpers/reference-search.js';

describe('indexed search agrees with a walk over every session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t?.close());

  it('on 3,000 varied queries over the demo catalogue (towns, parts of names, places and radii, regions, departments, dates, prices, weekdays, sorts), page after page', () => {
    const snapshot = t.app.catalogue.snapshot;
    // A day of the demo, mid-morning in Paris, on which some sessions have begun (in Paris, in La
    // Réunion) and others not yet (later ones, the Antilles'): the walk must tell them apart as the
    // reference does. The demo is dated from the real day, so the first such day is looked for.
    const days = [...new Set([...snapshot.sessions].map((e) => e.record.day1))].sort();
    const mixed = days.find((day) => {
      const at = startInstant(day, '09:10', 'Europe/Paris');
      const ofDay = [...snapshot.sessions].filter((e) => e.record.day1 === day);
      return ofDay.some((e) => e.startsAt <= at) && ofDay.some((e) => e.startsAt > at);
    });
    expect(mixed, 'a day with sessions begun and not begun at 09:10 in Paris').toBeDefined();
    const now = new Date(startInstant(mixed as string, '09:10', 'Europe/Paris'));
    const today = dateIn(now);
    const rnd = random(20261122);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    const cities = [...new Set([...snapshot.centresById.values()].map((c) => c.view.city))];
    // As near, a centre's town with its postal code: a bare name several communes bear is a question back.
    const places = [...new Set([...snapshot.centresById.values()].map((c) => `${c.view.city} ${c.view.postalCode}`))];
    const regions = [...new Set(DEPARTMENTS.map((d) => d.region))];
    const day = (offset: number) => addDays(today, offset);
    const part = (text: string) => {
      const start = Math.floor(rnd() * text.length);
      return text.slice(start, start + 1 + Math.floor(rnd() * 6));
    };
    let nonEmpty = 0;
    let merged = 0;
    for (let i = 0; i < 3000; i++) {
      const query: SearchQuery = { limit: pick([1, 5, 20, 100]), includeUnavailable: rnd() < 0.3 };
      const shape = rnd();
      if (shape < 0.35) query.city = pick(cities);
      else if (shape < 0.55) query.city = part(pick(cities));
      else if (shape < 0.65) query.city = pick(['zzzz', 'saint', 'st', 'e', 'a', 'sur', '-', 'lyon 3']);
      if (rnd() < 0.25) query.region = rnd() < 0.5 ? pick(regions) : part(pick(regions));
      if (rnd() < 0.3) query.dept = pick(DEPARTMENTS).code;
      if (rnd() < 0.3) query.from = day(Math.floor(rnd() * 400) - 30);
      if (rnd() < 0.2) query.to = day(Math.floor(rnd() * 400));
      if (rnd() < 0.3) query.maxPrice = Math.round(90 + rnd() * 250);
      if (rnd() < 0.3) {
        query.near = pick([...places, '69003', 'Lyon 3e', 'St Etienne', '45.77,4.88', '75015', 'Paris 15e', '13008']);
        if (rnd() < 0.5) query.radiusKm = pick([1, 5, 10, 50, 200]);
      }
      if (rnd() < 0.3) query.days = pick([[6], [1], [5, 6], [0], [2, 3, 4]]);
      const sorts = query.near ? (['date', 'price', 'distance'] as const) : (['date', 'price'] as const);
      if (rnd() < 0.5) query.sort = pick(sorts);
      const reference = referenceAll(snapshot, query, now);
      const first = searchStages(snapshot, query, now);
      const expected = reference.all.slice(0, query.limit);
      expect(
        first.entries.map((e) => e.record.id),
        JSON.stringify(query),
      ).toEqual(expected);
      expect(first.total, JSON.stringify(query)).toBe(reference.all.length);
      if (query.near) {
        expect(first.distances, JSON.stringify(query)).toEqual(expected.map((id) => reference.distances.get(id)));
      }
      // Every few queries (of a few hundred matches at most), walk every page: together they are the whole answer, in order.
      if (i % 10 === 0 && reference.all.length <= 400) {
        const walked = first.entries.map((e) => e.record.id);
        let cursor = first.nextCursor;
        while (cursor) {
          const page = searchStages(snapshot, { ...query, cursor }, now);
          expect(page.total).toBe(reference.all.length);
          walked.push(...page.entries.map((e) => e.record.id));
          cursor = page.nextCursor;
        }
        expect(walked, JSON.stringify(query)).toEqual(reference.all);
      } else {
        expect(first.nextCursor === undefined, JSON.stringify(query)).toBe(reference.all.length <= query.limit);
      }
      if (expected.length > 0) nonEmpty++;
      if (query.city || query.region) merged++;
    }
    // The generator reaches both paths and finds sessions most of the time.
    expect(nonEmpty).toBeGreaterThan(1200);
    expect(merged).toBeGreaterThan(1500);
    // The reference walks every session for each query: about 10 s alone, minutes on a busy machine.
  }, 300_000);
});
