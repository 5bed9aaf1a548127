import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { createMcpHandler, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalogue, CatalogueUpdate } from '../catalogue/catalogue.js';
import type { Config } from '../config.js';
import type { ToolContext } from './context.js';
import { jsonRpcError, sendResponse, TRANSPORT_ERROR } from './json-rpc.js';
import { INVALID_PARAMS } from './request-guards.js';
import { SESSION_URI_PREFIX } from './resources.js';
import { createMcpServer } from './server.js';

export type ListenLimits = Config['mcpListen'];

type ListenRequest = {
  id: string | number;
  method: 'subscriptions/listen';
  params?: { notifications?: { resourceSubscriptions?: unknown } & Record<string, unknown> } & Record<string, unknown>;
};

/** Whether a parsed body is one `subscriptions/listen` request (not a batch, not a notification). */
export function isListenRequest(body: unknown): body is ListenRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as { method?: unknown; id?: unknown };
  return (
    message.method === 'subscriptions/listen' && (typeof message.id === 'string' || typeof message.id === 'number')
  );
}

/** The canonical URI of a session resource the catalogue holds, or undefined. */
function sessionUri(catalogue: Catalogue, uri: string): string | undefined {
  if (!uri.startsWith(SESSION_URI_PREFIX)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(uri.slice(SESSION_URI_PREFIX.length)).toLowerCase();
  } catch {
    return undefined;
  }
  return catalogue.snapshot.sessionsById.get(id) !== undefined ? `${SESSION_URI_PREFIX}${id}` : undefined;
}

/**
 * The 2026-07-28 revision's `subscriptions/listen` for the sessions' resources: the response is an
 * SSE stream that stays open and carries `notifications/resources/updated` for each watched
 * session that changes (places, price, status), whichever instance made the change — the read
 * model's updates reach every instance through the database (LISTEN/NOTIFY), and each instance
 * notifies the listens it holds, so no sticky session is needed.
 *
 * The SDK's entry serves the stream (acknowledgement, subscription ids, keep-alive comments,
 * graceful closing result); this adds what it leaves to the server: the caps (listens per
 * instance, URIs per listen, refused in plain words), the honoured subset (only the sessions the
 * catalogue holds, in canonical form), the link to the catalogue's changes, and the ending of
 * every listen when the instance drains or closes.
 */
export class SessionListens {
  readonly #handler: ReturnType<typeof createMcpHandler>;
  /** How many open listens watch each URI: only changes of these are published. */
  readonly #watched = new Map<string, number>();
  /** The sockets of open listens: each is done when its listen ends. */
  readonly #sockets = new Set<Socket>();
  #open = 0;
  #closed = false;

  constructor(
    private readonly ctx: ToolContext,
    readonly limits: ListenLimits,
    onerror: (err: Error) => void,
  ) {
    this.#handler = createMcpHandler(() => createMcpServer(ctx, { subscribe: true }), {
      legacy: 'reject',
      // A backstop: serve() refuses past the cap first, with a clearer answer.
      maxSubscriptions: limits.max,
      keepAliveMs: limits.keepAliveMs,
      onerror,
    });
  }

  /** Open listens on this instance. */
  get open(): number {
    return this.#open;
  }

  /** Notifies the listens that watch a session the update changed (all of them after a rebuild). */
  publish(update: CatalogueUpdate): void {
    if (this.#watched.size === 0) return;
    const notify = this.#handler.notify;
    if (update.kind === 'reload') {
      for (const uri of this.#watched.keys()) notify.resourceUpdated(uri);
      return;
    }
    for (const id of update.delta.sessions.keys()) {
      const uri = `${SESSION_URI_PREFIX}${id}`;
      if (this.#watched.has(uri)) notify.resourceUpdated(uri);
    }
  }

  /** Ends every listen with the revision's graceful result; later listens are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Each open listen gets the revision's graceful result, then its stream ends.
    await this.#handler.close();
    // A socket whose end cannot be flushed (a client that stopped reading) must not hold the close.
    for (const socket of this.#sockets) setTimeout(() => socket.destroy(), 500).unref();
  }

  /** Serves one `subscriptions/listen` of the stateless revision. */
  async serve(
    request: FastifyRequest,
    reply: FastifyReply,
    webRequest: Request,
    options: McpHandlerRequestOptions,
    message: ListenRequest,
  ): Promise<FastifyReply> {
    if (this.#closed || request.server.lifecycle.draining) {
      reply.header('retry-after', 1);
      return jsonRpcError(
        reply,
        503,
        TRANSPORT_ERROR,
        'This instance is shutting down: send subscriptions/listen again (another instance takes it).',
        message.id,
      );
    }
    if (this.#open >= this.limits.max) {
      reply.header('retry-after', 30);
      return jsonRpcError(
        reply,
        503,
        TRANSPORT_ERROR,
        `This instance holds as many subscriptions/listen streams as it can (${this.limits.max}); retry later.`,
        message.id,
      );
    }
    const honoured = this.#honoured(message);
    if (honoured === 'too_many')
      return jsonRpcError(
        reply,
        200,
        INVALID_PARAMS,
        `A subscriptions/listen may watch at most ${this.limits.maxResources} resources (notifications.resourceSubscriptions); open several listens for more.`,
        message.id,
      );
    const parsedBody = honoured === undefined ? message : honoured.message;
    const uris = honoured === undefined ? [] : honoured.uris;

    // The SDK ends the subscription when this signal aborts: when the client goes away.
    const aborted = new AbortController();
    reply.raw.once('close', () => aborted.abort());
    const listenRequest = new Request(webRequest, { signal: aborted.signal });
    this.#watch(uris, 1);
    let response: Response;
    try {
      response = await this.#handler.fetch(listenRequest, { ...options, parsedBody });
    } catch (err) {
      this.#watch(uris, -1);
      throw err;
    }
    const body = response.body;
    if (body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      this.#watch(uris, -1);
      return sendResponse(reply, response);
    }
    this.#open++;
    const socket = request.raw.socket as Socket | undefined;
    if (socket) this.#sockets.add(socket);
    reply.raw.once('close', () => {
      this.#open--;
      this.#watch(uris, -1);
      if (!socket) return;
      this.#sockets.delete(socket);
      // The listen was the connection's last use (Connection: close); a client that went away
      // may leave it half-open, which would hold the server's close until a timeout.
      socket.end();
      setTimeout(() => socket.destroy(), 500).unref();
    });
    // The stream is quiet between keep-alives and outlives any request timeout.
    socket?.setTimeout?.(0);
    response.headers.forEach((value, name) => {
      if (name !== 'connection' && name !== 'content-length') reply.header(name, value);
    });
    // The stream is the connection's last use: when it ends, so does the socket.
    reply.header('connection', 'close');
    return reply.code(response.status).send(Readable.fromWeb(body as NodeWebStream<Uint8Array>));
  }

  /**
   * The request with its resourceSubscriptions narrowed to the sessions the catalogue holds, in
   * canonical form (what the acknowledgement then names); undefined when it names none in a form
   * this can read (the SDK answers a malformed filter itself).
   */
  #honoured(message: ListenRequest): { message: ListenRequest; uris: string[] } | 'too_many' | undefined {
    const notifications = message.params?.notifications;
    const asked = notifications?.resourceSubscriptions;
    if (!Array.isArray(asked) || !asked.every((u): u is string => typeof u === 'string')) return undefined;
    if (asked.length > this.limits.maxResources) return 'too_many';
    const uris = [
      ...new Set(asked.map((u) => sessionUri(this.ctx.catalogue, u)).filter((u): u is string => u !== undefined)),
    ];
    const params = { ...message.params, notifications: { ...notifications, resourceSubscriptions: uris } };
    return { message: { ...message, params }, uris };
  }

  #watch(uris: readonly string[], by: 1 | -1): void {
    for (const uri of uris) {
      const count = (this.#watched.get(uri) ?? 0) + by;
      if (count <= 0) this.#watched.delete(uri);
      else this.#watched.set(uri, count);
    }
  }
}

/** The listens of an app: fed by the catalogue's changes, ended when the instance drains or closes. */
export function registerListens(app: FastifyInstance, ctx: ToolContext, onerror: (err: Error) => void) {
  const listens = new SessionListens(ctx, app.config.mcpListen, onerror);
  const unsubscribe = app.catalogue.subscribe((update) => listens.publish(update));
  app.lifecycle.onDrain(() => void listens.close());
  app.addHook('preClose', async () => {
    unsubscribe();
    await listens.close();
  });
  return listens;
}
