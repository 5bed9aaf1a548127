import type { CatalogueUpdate } from './catalogue.js';
import type { CatalogueSnapshot } from './read-model.js';
import { type SessionStatus, sessionStatus } from './session-status.js';
import type { EventSpan } from './stream-filter.js';

/** What a consumer of the change stream learns about one session: where it stands now. */
export interface SessionChange {
  id: string;
  /** `removed`: the session no longer exists. */
  status: SessionStatus | 'removed';
  spotsAvailable: number | null;
  priceEuros: number | null;
  /** The catalogue version that carried this change. */
  version: number;
}

/** One changed session as the snapshot now holds it. */
export function sessionChange(snapshot: CatalogueSnapshot, id: string, now: Date): SessionChange {
  const entry = snapshot.sessionsById.get(id);
  if (!entry) return { id, status: 'removed', spotsAvailable: null, priceEuros: null, version: snapshot.version };
  return {
    id,
    status: sessionStatus(entry, now),
    spotsAvailable: entry.view.spotsAvailable,
    priceEuros: entry.view.priceEuros,
    version: snapshot.version,
  };
}

/** A change and the department of its session's centre (undefined once the session is gone from both snapshots). */
export interface LocatedChange {
  change: SessionChange;
  dept: string | undefined;
}

/** The department of a session's centre in `snapshot`, if it holds the session. */
export function deptOf(snapshot: CatalogueSnapshot, id: string): string | undefined {
  return snapshot.sessionsById.get(id)?.centre.view.deptCode;
}

/**
 * The sessions an update changed, each as it now stands with its department (the previous
 * snapshot's for a removed session); `reset` when the read model was rebuilt whole (a replaced
 * catalogue, a gap in the log) and a consumer should read the list again.
 */
export function changesOf(update: CatalogueUpdate, now: Date): LocatedChange[] | 'reset' {
  if (update.kind === 'reload') return 'reset';
  return [...update.delta.sessions.keys()].map((id) => ({
    change: sessionChange(update.snapshot, id, now),
    dept: deptOf(update.snapshot, id) ?? deptOf(update.previous, id),
  }));
}

export function resetEvent(version: number): string {
  return `event: reset\ndata: ${JSON.stringify({ version })}\nid: ${version}\n\n`;
}

/**
 * The first event of a fresh stream: the version it starts from, as its id. An event with data,
 * because EventSource clients built on eventsource-parser (the npm eventsource among them) keep
 * the id only of an event they dispatch, and dispatch none without data: an id alone in a block
 * is lost to them, and a client ended before the first change could not resume.
 */
export function readyEvent(version: number): string {
  return `event: ready\ndata: ${JSON.stringify({ version })}\nid: ${version}\n\n`;
}

/**
 * One version's events as the bytes an unfiltered stream sends: `spans` says where each session's
 * event lies, so that a filtered stream picks its own out of the same bytes (stream-filter.ts);
 * a `reset` has no spans and goes to every stream.
 */
export interface EncodedVersion {
  bytes: Buffer;
  spans?: readonly EventSpan[];
}

/** The `session` events of a list of changes; the last one carries the id that a client resumes from. */
export function sessionEvents(changes: readonly LocatedChange[]): EncodedVersion {
  const texts: string[] = [];
  const spans: EventSpan[] = [];
  let offset = 0;
  for (const [i, { change, dept }] of changes.entries()) {
    const body = `event: session\ndata: ${JSON.stringify(change)}\n`;
    const tail = i === changes.length - 1 ? `id: ${change.version}\n\n` : '\n';
    const bodyEnd = offset + Buffer.byteLength(body);
    spans.push({ sessionId: change.id, dept, start: offset, bodyEnd });
    offset = bodyEnd + tail.length;
    texts.push(body, tail);
  }
  return { bytes: Buffer.from(texts.join('')), spans };
}

/**
 * An update's events: encoded once per update, whatever the number of streams; filtered streams
 * send their part of the same bytes.
 */
export function encodeUpdate(update: CatalogueUpdate, now: Date): EncodedVersion {
  const changes = changesOf(update, now);
  return changes === 'reset' ? { bytes: Buffer.from(resetEvent(update.snapshot.version)) } : sessionEvents(changes);
}

/** Why a stream was ended before its client closed it (the `overflow` event's `reason`). */
export type OverflowReason = 'too_slow' | 'server_busy';

/**
 * The last event of a stream ended for not keeping up. It carries no `id:`, so an EventSource keeps
 * the id of the last whole version it received and resumes from it when it reconnects.
 */
export function overflowEvent(reason: OverflowReason, lastEventId: string | undefined): Buffer {
  return Buffer.from(`event: overflow\ndata: ${JSON.stringify({ reason, lastEventId: lastEventId ?? null })}\n\n`);
}
