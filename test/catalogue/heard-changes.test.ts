import { describe, expect, it } from 'vitest';
import { HeardChanges } from '../../src/catalogue/heard-changes.js';
import type { CatalogueDelta, SessionRecord } from '../../src/catalogue/read-model.js';

/** A change of `version` setting each session's price (null: deleted). */
function change(version: number, prices: Record<string, number | null>): CatalogueDelta {
  const sessions = new Map<string, SessionRecord | null>();
  for (const [id, cents] of Object.entries(prices))
    sessions.set(
      id,
      cents === null
        ? null
        : {
            id,
            centreId: 'c',
            courseNumber: 'n',
            day1: '2030-03-05',
            day2: '2030-03-06',
            startTime: '08:30',
            endTime: '16:30',
            priceCents: cents,
            capacity: 20,
            spotsAvailable: 5,
          },
    );
  return { version, updatedAt: new Date(version * 1000), centres: new Map(), sessions };
}
const prices = (d: CatalogueDelta | undefined) =>
  d && [...d.sessions].map(([id, r]) => [id, r === null ? null : r.priceCents]);

describe('the changes an instance heard', () => {
  it('gives the next versions heard in a row as one change, each session as the last has it, in its first place', () => {
    const heard = new HeardChanges();
    heard.hear({ version: 11, delta: change(11, { a: 100, b: 200 }) }, true);
    heard.hear({ version: 13, delta: change(13, { a: 300, c: null }) }, true);
    heard.hear({ version: 12, delta: change(12, { b: 250 }) }, true);
    heard.hear({ version: 15, delta: change(15, { d: 1 }) }, true); // after a gap: not yet
    expect(heard.takeAfter(9)).toBeUndefined();
    const taken = heard.takeAfter(10);
    expect(taken?.version).toBe(13);
    expect(taken?.updatedAt).toEqual(new Date(13_000));
    expect(prices(taken)).toEqual([
      ['a', 300],
      ['b', 250],
      ['c', null],
    ]);
    expect(heard.takeAfter(10)).toBeUndefined(); // taken out
    expect(heard.takeAfter(14)?.version).toBe(15);
  });

  it('keeps nothing it is told not to keep, nor a version said without its change, nor what was applied', () => {
    const heard = new HeardChanges();
    heard.hear({ version: 21, delta: change(21, { a: 1 }) }, false);
    expect(heard.takeAfter(20)).toBeUndefined();
    heard.hear({ version: 21, delta: change(21, { a: 1 }) }, true);
    heard.hear({ version: 21 }, true);
    expect(heard.takeAfter(20)).toBeUndefined();
    heard.hear({ version: 22, delta: change(22, { a: 2 }) }, true);
    heard.forgetUpTo(22);
    expect(heard.takeAfter(21)).toBeUndefined();
    heard.hear({ version: 23, delta: change(23, { a: 3 }) }, true);
    heard.clear();
    expect(heard.takeAfter(22)).toBeUndefined();
  });

  it('owes a read of the log after a change of unknown version, until a read begins', () => {
    const heard = new HeardChanges();
    expect(heard.readOwed).toBe(false);
    heard.hear(undefined, true);
    expect(heard.readOwed).toBe(true);
    heard.reading();
    expect(heard.readOwed).toBe(false);
  });

  it('keeps at most 1,000 changes: past them, the log says the rest', () => {
    const heard = new HeardChanges();
    for (let v = 1; v <= 1_001; v++) heard.hear({ version: v, delta: change(v, { a: v }) }, true);
    expect(heard.takeAfter(0)?.version).toBe(1_000);
  });
});
