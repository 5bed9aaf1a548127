import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, type SessionRecord, sessionJson, urlBuilder } from '../../src/catalogue/read-model.js';

describe('session entries', () => {
  const data = generateDemoCatalogue({ today: '2026-11-23', scale: 1 });
  const cancelled: SessionRecord = { ...(data.sessions[0] as SessionRecord), id: 'cancelled-1', status: 'cancelled' };
  const scheduled: SessionRecord = { ...(data.sessions[1] as SessionRecord), id: 'scheduled-1', status: 'scheduled' };
  const records = [...data.sessions, cancelled, scheduled];
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
});
