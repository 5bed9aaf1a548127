import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readyEvent, resetEvent, sessionChange, sessionEvents } from './change-events.js';
import type { EventStreams } from './event-streams.js';
import { sessionsChangedBetween } from './repository.js';

/** Milliseconds an EventSource waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 2000;

/**
 * Follows the catalogue's changes on an open event stream: what was missed since `resumeText`
 * first, when given, then every version as it comes (from the feed the streams share). The stream
 * joins the feed before the missed changes are read, so none is lost or sent twice.
 */
export async function streamChanges(
  app: FastifyInstance,
  request: FastifyRequest,
  res: ServerResponse,
  streams: EventStreams,
  address: string,
  resumeText: string | undefined,
): Promise<void> {
  const version = app.catalogue.snapshot.version;
  const stream = streams.open(res, address, version);
  // A fresh stream's first event (`ready`) carries the version it starts from as its id: a client
  // ended before any change still resumes from there.
  const ready = resumeText === undefined ? readyEvent(version) : '\n';
  res.write(`retry: ${RETRY_MS}\n: stream of ${app.config.platformName} catalogue changes\n${ready}`);
  if (resumeText === undefined) return stream.start(undefined, version, String(version));
  const replay = await missedSince(app, request, Number(resumeText));
  // A replay is this stream's own bytes: make room for it in the streams' budget first.
  streams.enforce(replay.bytes.length);
  stream.start(replay.bytes, replay.upTo, replay.bytes.length ? String(replay.upTo) : resumeText);
}

/** Each session changed since version `since`, as it now stands, and the version that covers. */
async function missedSince(app: FastifyInstance, request: FastifyRequest, since: number) {
  const snapshot = app.catalogue.snapshot;
  try {
    const ids = await sessionsChangedBetween(app.database.db, since, snapshot.version);
    if (ids === 'reset') return { bytes: Buffer.from(resetEvent(snapshot.version)), upTo: snapshot.version };
    const now = app.clock.now();
    const text = sessionEvents(ids.map((id) => sessionChange(snapshot, id, now)));
    return { bytes: Buffer.from(text), upTo: snapshot.version };
  } catch (err) {
    // Without the log (database down), the consumer cannot know what it missed: it reads again.
    request.log.warn({ err }, 'change stream replay failed');
    return { bytes: Buffer.from(resetEvent(snapshot.version)), upTo: snapshot.version };
  }
}
