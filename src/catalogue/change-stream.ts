import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deptOf, readyEvent, resetEvent, sessionChange, sessionEvents } from './change-events.js';
import type { EventStreams } from './event-streams.js';
import { sessionsChangedBetween } from './repository.js';
import { filteredBytes, type StreamFilter } from './stream-filter.js';

/** Milliseconds an EventSource waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 2000;

/**
 * Follows the catalogue's changes on an open event stream: what was missed since `resumeText`
 * first, when given, then every version as it comes (from the feed the streams share). The stream
 * joins the feed before the missed changes are read, so none is lost or sent twice. A `filter`
 * applies to both: a filtered stream resumed with Last-Event-ID stays filtered.
 */
export async function streamChanges(
  app: FastifyInstance,
  request: FastifyRequest,
  res: ServerResponse,
  streams: EventStreams,
  address: string,
  resumeText: string | undefined,
  filter: StreamFilter | undefined,
): Promise<void> {
  const version = app.catalogue.snapshot.version;
  const stream = streams.open(res, address, version, filter);
  // A fresh stream's first event (`ready`) carries the version it starts from as its id: a client
  // ended before any change still resumes from there.
  const ready = resumeText === undefined ? readyEvent(version) : '\n';
  res.write(`retry: ${RETRY_MS}\n: stream of ${app.config.platformName} catalogue changes\n${ready}`);
  if (resumeText === undefined) return stream.start(undefined, version, String(version));
  const replay = await missedSince(app, request, Number(resumeText), filter);
  // A replay is this stream's own bytes: make room for it in the streams' budget first.
  streams.enforce(replay.bytes.length);
  stream.start(replay.bytes, replay.upTo, replay.bytes.length ? String(replay.upTo) : resumeText);
}

/**
 * Each session changed since version `since` (those the filter accepts), as it now stands, and the
 * version that covers. A removed session's department is no longer known: see filterAccepts.
 */
async function missedSince(
  app: FastifyInstance,
  request: FastifyRequest,
  since: number,
  filter: StreamFilter | undefined,
): Promise<{ bytes: Buffer; upTo: number }> {
  const snapshot = app.catalogue.snapshot;
  try {
    const ids = await sessionsChangedBetween(app.database.db, since, snapshot.version);
    if (ids === 'reset') return { bytes: Buffer.from(resetEvent(snapshot.version)), upTo: snapshot.version };
    const now = app.clock.now();
    const encoded = sessionEvents(
      ids.map((id) => ({ change: sessionChange(snapshot, id, now), dept: deptOf(snapshot, id) })),
    );
    const bytes = filter ? filteredBytes({ ...encoded, version: snapshot.version }, filter) : encoded.bytes;
    return { bytes: bytes ?? Buffer.alloc(0), upTo: snapshot.version };
  } catch (err) {
    // Without the log (database down), the consumer cannot know what it missed: it reads again.
    request.log.warn({ err }, 'change stream replay failed');
    return { bytes: Buffer.from(resetEvent(snapshot.version)), upTo: snapshot.version };
  }
}
