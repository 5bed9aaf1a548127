import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { addressBucket } from '../http/rate-limit.js';
import { encodeUpdate } from './change-events.js';
import { RETRY_MS, streamChanges } from './change-stream.js';
import { EventStreams, type StreamLimits } from './event-streams.js';
import { registerEventMetrics } from './events-metrics.js';
import { EventsQuery, filterOf } from './events-query.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The open change streams (GET /api/stages/events): their counts and unsent bytes. */
    eventStreams: EventStreams;
  }
}

/**
 * GET /api/stages/events and the streams it holds. Each catalogue version's events are encoded once
 * and shared by every stream; a stream that does not keep up is ended with an `overflow` event.
 */
export async function registerEventsRoute(app: FastifyInstance, limits: StreamLimits): Promise<void> {
  const streams = new EventStreams(limits);
  app.decorate('eventStreams', streams);
  const unsubscribe = app.catalogue.subscribe((update) =>
    streams.publish(update.snapshot.version, () => encodeUpdate(update, app.clock.now())),
  );
  app.addHook('preClose', async () => {
    unsubscribe();
    streams.endAll();
  });
  if (app.metrics) await registerEventMetrics(app.metrics, streams);
  await app.register(eventsRoute(streams));
}

function description({ heartbeatMs, maxPerAddress, maxStreamBytes }: StreamLimits): string {
  return `text/event-stream. Events: \`ready\` (data: {version}, \`id:\` = that version) first on a fresh stream; \`session\` (data: {id, status: available|full|past|cancelled|removed, spotsAvailable, priceEuros, version}) for each changed session; \`reset\` (data: {version}) when the catalogue changed wholesale and should be read again; \`overflow\` (data: {reason: too_slow|server_busy, lastEventId}) as the last event of a stream the server ends because its client did not keep up (more than ${maxStreamBytes / 1024} KB unsent): reconnect with Last-Event-ID. The last event of each catalogue version carries \`id:\` = the version: reconnect with the \`Last-Event-ID\` header (or \`?lastEventId=\`) to receive what was missed. With \`sessionId\` and/or \`dept\`, only the \`session\` events of those sessions or departments are sent (the last of each version carrying its id), on the live stream and on a resume alike (reconnect with the same parameters); \`ready\`, \`reset\` and \`overflow\` are sent to every stream. A comment line every ${heartbeatMs / 1000} s keeps the stream open; \`retry: ${RETRY_MS}\`. At most ${maxPerAddress} open streams per address (429 beyond).`;
}

/**
 * The catalogue's changes as Server-Sent Events, one `session` event per changed session (id,
 * status, places left, price); the last event of each catalogue version carries `id: <version>`,
 * so a client that reconnects with Last-Event-ID gets what it missed (from the change log, each
 * session as it now stands) and nothing twice. A `reset` event says the list changed wholesale: read
 * it again. A comment line every `heartbeatMs` keeps proxies from closing the stream.
 */
function eventsRoute(streams: EventStreams): FastifyPluginAsyncZod {
  const { limits } = streams;
  return async (app) => {
    app.get(
      '/api/stages/events',
      {
        // The stream is quiet between heartbeats: the connection's idle timeout does not apply.
        config: { longLived: true },
        schema: {
          operationId: 'streamStageChanges',
          summary: 'Stream changes of places, prices and status (Server-Sent Events)',
          description: description(limits),
          tags: ['stages'],
          querystring: EventsQuery,
          response: {
            200: z.string().describe('The event stream (text/event-stream).'),
            400: problemResponse(
              'A parameter is invalid: Last-Event-ID (or lastEventId) is not a version number of this stream, a sessionId is not a UUID, a dept is not a department code, or too many are repeated; `errors` names it.',
            ),
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
        const refused = streams.refusal(address);
        if (refused === 'address') {
          reply.header('retry-after', 60);
          return sendProblem(
            reply,
            problem(429, 'too_many_streams', `At most ${limits.maxPerAddress} open event streams per address.`),
          );
        }
        if (refused === 'full') {
          reply.header('retry-after', 30);
          return sendProblem(reply, problem(503, 'unavailable', 'Too many open event streams; retry later.'));
        }

        reply.hijack();
        // The stream is meant to be quiet between heartbeats and to outlive any request timeout: no
        // idle timeout of the server's (Fastify's connectionTimeout, http.Server#timeout) applies to
        // its socket. A client that stops reading is ended by the byte bounds instead, and a dead
        // peer by TCP once the heartbeats go unacknowledged.
        request.raw.socket.setTimeout(0);
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
        await streamChanges(app, request, res, streams, address, resumeText, filterOf(request.query));
      },
    );
  };
}
