import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import {
  CatalogueSnapshot,
  type SessionRecord,
  sessionJson,
  sessionJsonLength,
  urlBuilder,
  writeSessionJson,
} from '../../src/catalogue/read-model.js';
import { startInstant } from '../../src/core/clock.js';

describe('session entries', () => {
  const data = generateDemoCatalogue({ today: '2026-11-23', scale: 1 });
  const cancelled: SessionRecord = { ...(data.sessions[0] as SessionRecord), id: 'cancelled-1', status: 'cancelled' };
  const scheduled: SessionRecord = { ...(data.sessions[1] as SessionRecord), id: 'scheduled-1', status: 'scheduled' };
  // Held otherwise than most: an id whose JSON is not ASCII (its bytes, not a string), a start that
  // is no instant, and one past the minutes V8 keeps as small integers.
  const accented: SessionRecord = { ...(data.sessions[2] as SessionRecord), id: 'séance-"1"\u2028' };
  const impossible: SessionRecord = { ...(data.sessions[3] as SessionRecord), id: 'impossible-1', startTime: 'midi' };
  const far: SessionRecord = {
    ...(data.sessions[4] as SessionRecord),
    id: 'far-1',
    day1: '9999-12-30',
    day2: '9999-12-31',
  };
  const records = [...data.sessions, cancelled, scheduled, accented, impossible, far];
  const snapshot = CatalogueSnapshot.build(1, new Date(), data.centres, records, urlBuilder('https://stages.example'));

  it('keep every field of the record they were built from, and only those (a status only where one was given)', () => {
    for (const record of records) expect(snapshot.sessionsById.get(record.id)?.record).toStrictEqual(record);
    expect(snapshot.sessionsById.get('cancelled-1')?.cancelled).toBe(true);
    expect(snapshot.sessionsById.get('scheduled-1')?.cancelled).toBe(false);
  });

  it('give a view that is their JSON, equal on every read', () => {
    for (const e of snapshot.sessionsById.values()) {
      expect(e.view).toStrictEqual(JSON.parse(sessionJson(e).toString()));
      expect(e.view).toStrictEqual(e.view);
      expect(e.view.centre).toBe(e.centre.view);
    }
  });

  it('write the same JSON into a shared buffer, at any offset, as UTF-8 (non-ASCII too)', () => {
    for (const id of ['séance-"1"\u2028', 'impossible-1', 'far-1', (data.sessions[5] as SessionRecord).id]) {
      const e = snapshot.sessionsById.get(id);
      if (!e) throw new Error(`no entry ${id}`);
      const json = Buffer.from(JSON.stringify(e.view));
      expect(sessionJsonLength(e)).toBe(json.length);
      const into = Buffer.alloc(json.length + 7, '#');
      expect(writeSessionJson(e, into, 3)).toBe(3 + json.length);
      expect(into.toString()).toBe(`###${json.toString()}####`);
    }
  });

  it("start when their day and time in their centre's zone say, or never for a time that is none", () => {
    for (const e of snapshot.sessionsById.values())
      expect(e.startsAt).toBe(startInstant(e.record.day1, e.record.startTime, e.centre.timeZone));
    expect(snapshot.sessionsById.get('impossible-1')?.startsAt).toBeNaN();
    expect(snapshot.sessionsById.get('far-1')?.startsAt).toBeGreaterThan(Date.parse('9999-12-29T00:00:00Z'));
  });
});
