import type { CatalogueUpdate } from './catalogue.js';
import type { CatalogueSnapshot } from './read-model.js';
import { type SessionStatus, sessionStatus } from './session-status.js';

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

/**
 * The sessions an update changed, each as it now stands; `reset` when the read model was rebuilt
 * whole (a replaced catalogue, a gap in the log) and a consumer should read the list again.
 */
export function changesOf(update: CatalogueUpdate, now: Date): SessionChange[] | 'reset' {
  if (update.kind === 'reload') return 'reset';
  return [...update.delta.sessions.keys()].map((id) => sessionChange(update.snapshot, id, now));
}

export function sessionEvent(change: SessionChange, last: boolean): string {
  return `event: session\ndata: ${JSON.stringify(change)}\n${last ? `id: ${change.version}\n` : ''}\n`;
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

/** The events of a list of changes: the last one carries the id that a client resumes from. */
export function sessionEvents(changes: readonly SessionChange[]): string {
  let text = '';
  for (const [i, c] of changes.entries()) text += sessionEvent(c, i === changes.length - 1);
  return text;
}

/**
 * An update's events as the bytes every stream sends: built once per update, whatever the number
 * of streams (the streams have no filters, so every one sends the same bytes).
 */
export function encodeUpdate(update: CatalogueUpdate, now: Date): Buffer {
  const changes = changesOf(update, now);
  return Buffer.from(changes === 'reset' ? resetEvent(update.snapshot.version) : sessionEvents(changes));
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
