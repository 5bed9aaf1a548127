import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogueUpdate } from './catalogue.js';
import { changesOf, type SessionChange, sessionChange } from './change-events.js';
import { sessionsChangedBetween } from './repository.js';

/** Milliseconds an EventSource waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 2000;

function sessionEvent(change: SessionChange, last: boolean): string {
  return `event: session\ndata: ${JSON.stringify(change)}\n${last ? `id: ${change.version}\n` : ''}\n`;
}

function resetEvent(version: number): string {
  return `event: reset\ndata: ${JSON.stringify({ version })}\nid: ${version}\n\n`;
}

/**
 * Writes the catalogue's changes to an open event stream until it closes (then `done`): what was
 * missed since `resumeText` first, when given, then every update as it comes. Live updates are
 * buffered until the replay is written, so that none is lost or reordered.
 */
export async function streamChanges(
  app: FastifyInstance,
  request: FastifyRequest,
  res: ServerResponse,
  resumeText: string | undefined,
  heartbeatMs: number,
  done: () => void,
): Promise<void> {
  let backlog: CatalogueUpdate[] | undefined = [];
  let sentUpTo = app.catalogue.snapshot.version;
  const write = (update: CatalogueUpdate) => {
    if (update.snapshot.version <= sentUpTo) return;
    sentUpTo = update.snapshot.version;
    const changes = changesOf(update, app.clock.now());
    if (changes === 'reset') res.write(resetEvent(update.snapshot.version));
    else for (const [i, c] of changes.entries()) res.write(sessionEvent(c, i === changes.length - 1));
  };
  const unsubscribe = app.catalogue.subscribe((update) => {
    if (backlog) backlog.push(update);
    else write(update);
  });
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
  heartbeat.unref();
  res.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
    done();
  });
  res.write(`retry: ${RETRY_MS}\n: stream of ${app.config.platformName} catalogue changes\n\n`);
  if (resumeText !== undefined) sentUpTo = await replay(app, request, res, Number(resumeText));
  const pending = backlog;
  backlog = undefined;
  for (const update of pending) write(update);
}

/** Writes each session changed since version `since`, as it now stands; returns the version written up to. */
async function replay(app: FastifyInstance, request: FastifyRequest, res: ServerResponse, since: number) {
  const snapshot = app.catalogue.snapshot;
  try {
    const ids = await sessionsChangedBetween(app.database.db, since, snapshot.version);
    if (ids === 'reset') res.write(resetEvent(snapshot.version));
    else {
      const now = app.clock.now();
      for (const [i, id] of ids.entries())
        res.write(sessionEvent(sessionChange(snapshot, id, now), i === ids.length - 1));
    }
  } catch (err) {
    // Without the log (database down), the consumer cannot know what it missed: it reads again.
    request.log.warn({ err }, 'change stream replay failed');
    res.write(resetEvent(snapshot.version));
  }
  return snapshot.version;
}
