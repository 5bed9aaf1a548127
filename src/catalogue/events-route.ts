import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { addressBucket } from '../http/rate-limit.js';
import type { CatalogueUpdate } from './catalogue.js';
import { changesOf, type SessionChange, sessionChange } from './change-events.js';
import { sessionsChangedBetween } from './repository.js';

/** Seconds an EventSource waits before reconnecting (the `retry:` field). */
const RETRY_MS = 2000;

const EventsQuery = z.object({
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, { error: 'lastEventId must be the id of an event of this stream (a version number)' })
    .optional()
    .describe('Where to resume, for clients that cannot send the Last-Event-ID header.'),
});

function sessionEvent(change: SessionChange, last: boolean): string {
  return `event: session\ndata: ${JSON.stringify(change)}\n${last ? `id: ${change.version}\n` : ''}\n`;
}

function resetEvent(version: number): string {
  return `event: reset\ndata: ${JSON.stringify({ version })}\nid: ${version}\n\n`;
}

/**
 * GET /api/stages/events: the catalogue's changes as Server-Sent Events, one `session` event per
 * changed session (id, status, places left, price); the last event of each catalogue version carries
 * `id: <version>`, so a client that reconnects with Last-Event-ID gets what it missed (from the change
 * log, each session as it now stands) and nothing twice. A `reset` event says the list changed
 * wholesale: read it again. A comment line every `heartbeatMs` keeps proxies from closing the stream.
 */
export function eventsRoutes(options: { heartbeatMs: number; maxPerAddress: number; maxStreams: number }) {
  const plugin: FastifyPluginAsyncZod = async (app) => {
    const open = new Set<ServerResponse>();
    // Every socket that carried a stream, until it closes: after a stream the socket is done.
    const sockets = new Set<Socket>();
    const perAddress = new Map<string, number>();

    app.addHook('preClose', async () => {
      // An open stream would hold the server's close until the shutdown timeout: end them; clients
      // reconnect (to another instance) after `retry`.
      for (const res of open) res.end();
      for (const socket of sockets) {
        socket.end();
        // An end that cannot be flushed (a client that stopped reading) must not hold the close.
        setTimeout(() => socket.destroy(), 500).unref();
      }
    });

    app.get(
      '/api/stages/events',
      {
        schema: {
          operationId: 'streamStageChanges',
          summary: 'Stream changes of places, prices and status (Server-Sent Events)',
          description: `text/event-stream. Events: \`session\` (data: {id, status: available|full|past|cancelled|removed, spotsAvailable, priceEuros, version}) for each changed session; \`reset\` (data: {version}) when the catalogue changed wholesale and should be read again. The last event of each catalogue version carries \`id:\` = the version: reconnect with the \`Last-Event-ID\` header (or \`?lastEventId=\`) to receive what was missed. A comment line every ${options.heartbeatMs / 1000} s keeps the stream open; \`retry: ${RETRY_MS}\`. At most ${options.maxPerAddress} open streams per address (429 beyond).`,
          tags: ['stages'],
          querystring: EventsQuery,
          response: {
            200: z.string().describe('The event stream (text/event-stream).'),
            400: problemResponse('Last-Event-ID (or lastEventId) is not a version number of this stream.'),
            429: problemResponse('Too many open streams from this address, or rate limit reached.'),
            503: problemResponse('The service holds as many streams as it can; retry later.'),
          },
        },
      },
      async (request, reply) => {
        const header = request.headers['last-event-id'];
        const resumeText = (Array.isArray(header) ? header[0] : header) ?? request.query.lastEventId;
        if (resumeText !== undefined && !/^\d{1,15}$/.test(resumeText))
          return sendProblem(
            reply,
            problem(400, 'invalid_parameters', 'Last-Event-ID must be the id of an event of this stream.', {
              errors: [{ name: 'Last-Event-ID', reason: 'must be a version number sent by this stream' }],
            }),
          );
        const address = addressBucket(request);
        const mine = perAddress.get(address) ?? 0;
        if (mine >= options.maxPerAddress) {
          reply.header('retry-after', 60);
          return sendProblem(
            reply,
            problem(429, 'too_many_streams', `At most ${options.maxPerAddress} open event streams per address.`),
          );
        }
        if (open.size >= options.maxStreams) {
          reply.header('retry-after', 30);
          return sendProblem(reply, problem(503, 'unavailable', 'Too many open event streams; retry later.'));
        }

        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no', // nginx: do not buffer the stream
          // The stream is the connection's last use: when it ends, so does the socket (a server
          // closing would otherwise wait for the keep-alive timeout of a socket it just freed).
          connection: 'close',
          'access-control-allow-origin': '*',
          'x-content-type-options': 'nosniff',
          'x-request-id': request.id,
        });
        open.add(res);
        const socket = res.socket;
        if (socket && !sockets.has(socket)) {
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
        }
        perAddress.set(address, mine + 1);

        // Live updates are buffered until the replay is written, so that none is lost or reordered.
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
        const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), options.heartbeatMs);
        heartbeat.unref();
        const done = () => {
          clearInterval(heartbeat);
          unsubscribe();
          if (!open.delete(res)) return;
          const left = (perAddress.get(address) ?? 1) - 1;
          if (left <= 0) perAddress.delete(address);
          else perAddress.set(address, left);
        };
        res.on('close', done);
        res.write(`retry: ${RETRY_MS}\n: stream of ${app.config.platformName} catalogue changes\n\n`);

        if (resumeText !== undefined) {
          const since = Number(resumeText);
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
          sentUpTo = snapshot.version;
        }
        const pending = backlog;
        backlog = undefined;
        for (const update of pending) write(update);
      },
    );
  };
  return plugin;
}
