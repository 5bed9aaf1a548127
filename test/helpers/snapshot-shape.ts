import { expect } from 'vitest';
import {
  type CatalogueSnapshot,
  compareSessions,
  DEPARTMENT_CHUNK,
  LIST_CHUNK,
  type SessionChunks,
  type SessionRecord,
  sessionJson,
} from '../../src/catalogue/read-model.js';

/** Everything a reader can see of a snapshot, in a comparable form. */
export function visible(s: CatalogueSnapshot) {
  const ids = (list: readonly { record: { id: string } }[] | undefined) => (list ?? []).map((e) => e.record.id);
  return {
    sessions: [...s.sessions].map((e) => sessionJson(e).toString()),
    byDept: Object.fromEntries(
      [...s.departments]
        .filter(([, d]) => d.sessions.length > 0)
        .map(([k, d]) => [k, ids([...d.sessions])])
        .sort(),
    ),
    byCentre: Object.fromEntries([...s.sessionsByCentre].map(([k, v]) => [k, ids(v)]).sort()),
    byId: [...s.sessionsById.values()].map((e) => `${e.record.id}:${e.cancelled}:${sessionJson(e).toString()}`).sort(),
    size: s.sessionsById.size,
  };
}

/** Lists in chunks as promised: none empty, none oversized, each after the one before. */
function expectChunked(list: SessionChunks, size: number) {
  const { chunks } = list;
  expect(list.size).toBe(size);
  expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(list.length);
  for (const [k, chunk] of chunks.entries()) {
    expect(chunk.length).toBeGreaterThan(0);
    expect(chunk.length).toBeLessThanOrEqual(2 * size);
    for (let i = 1; i < chunk.length; i++) {
      expect(compareSessions(chunk[i - 1]?.record as SessionRecord, chunk[i]?.record as SessionRecord)).toBeLessThan(0);
    }
    const before = chunks[k - 1];
    if (before) {
      const last = before[before.length - 1]?.record as SessionRecord;
      expect(compareSessions(last, chunk[0]?.record as SessionRecord)).toBeLessThan(0);
    }
  }
}

/** The list of all and each department's, in chunks as promised. */
export function expectWellChunked(s: CatalogueSnapshot) {
  expectChunked(s.sessions, LIST_CHUNK);
  for (const [code, { sessions }] of s.departments) {
    expectChunked(sessions, DEPARTMENT_CHUNK);
    for (const e of sessions) expect(e.centre.view.deptCode).toBe(code);
  }
}
