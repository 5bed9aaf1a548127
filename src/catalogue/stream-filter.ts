import type { FeedEntry } from './change-feed.js';

/** Most `sessionId` values one stream may name. */
export const STREAM_MAX_SESSIONS = 20;
/** Most `dept` values one stream may name. */
export const STREAM_MAX_DEPTS = 10;

/**
 * What a filtered change stream sends: the events of the sessions it names and of the sessions of
 * the departments it names (either one matching is enough). A stream without a filter sends all.
 */
export interface StreamFilter {
  readonly sessionIds: ReadonlySet<string>;
  readonly depts: ReadonlySet<string>;
}

/**
 * Where one `session` event lies in its version's bytes, and what it is about. `dept` is the
 * department of the session's centre, undefined when it is no longer known (a session removed
 * before the change was replayed).
 */
export interface EventSpan {
  readonly sessionId: string;
  readonly dept: string | undefined;
  /** Offset of the event's first byte. */
  readonly start: number;
  /** Offset just after its `data:` line: what follows is the version's `id:` line (last event only) and the blank line. */
  readonly bodyEnd: number;
}

/**
 * Whether a filtered stream sends an event. A session whose department is no longer known (removed,
 * then replayed) goes to department streams too: they may have known it, and a `removed` for a
 * session a client never saw costs it nothing.
 */
export function filterAccepts(filter: StreamFilter, sessionId: string, dept: string | undefined): boolean {
  if (filter.sessionIds.has(sessionId)) return true;
  if (filter.depts.size === 0) return false;
  return dept === undefined || filter.depts.has(dept);
}

const BLANK = Buffer.from('\n');

/**
 * The bytes a filtered stream sends of one version: its matching events, each as the feed holds it,
 * the last one closed by the version's id (as an unfiltered stream's last event is); nothing when
 * none matches. A version without spans (a `reset`) goes to every stream whole.
 */
export function filteredBytes(
  entry: Pick<FeedEntry, 'bytes' | 'spans' | 'version'>,
  filter: StreamFilter,
): Buffer | undefined {
  if (entry.spans === undefined) return entry.bytes;
  const parts: Buffer[] = [];
  for (const span of entry.spans) {
    if (!filterAccepts(filter, span.sessionId, span.dept)) continue;
    parts.push(entry.bytes.subarray(span.start, span.bodyEnd), BLANK);
  }
  if (parts.length === 0) return undefined;
  parts[parts.length - 1] = Buffer.from(`id: ${entry.version}\n\n`);
  return Buffer.concat(parts);
}
