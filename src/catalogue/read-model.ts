/*
 * The read model: an immutable, fully indexed snapshot of the catalogue that every read serves
 * from. Its parts live in read-model/: the entries and their serialisation (entries.ts), session
 * order (session-order.ts), lists in shared chunks (session-chunks.ts: the list of all, and each
 * department's in departments.ts), the id and centre indexes in shards (sharded-map.ts), the indexes
 * built whole (build.ts) or derived by applying a change (apply.ts), the snapshot itself
 * (snapshot.ts) and the url builder (url-builder.ts).
 */
export type { CatalogueDelta } from './read-model/apply.js';
export {
  type CentreEntry,
  type CentreRecord,
  centreEntry,
  type SessionEntry,
  type SessionRecord,
  type StoredSessionStatus,
  sessionEntry,
  sessionJson,
  sessionJsonLength,
  writeSessionJson,
} from './read-model/entries.js';
export { DEPARTMENT_CHUNK, LIST_CHUNK, SessionChunks } from './read-model/session-chunks.js';
export { compareSessions, firstOnOrAfter, partitionPoint } from './read-model/session-order.js';
export { ShardedMap } from './read-model/sharded-map.js';
export { CatalogueSnapshot } from './read-model/snapshot.js';
export { type UrlBuilder, urlBuilder } from './read-model/url-builder.js';
