import {
  type AuthInfo,
  type createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AnswerNote, withAnswerNote } from './answer-scope.js';
import type { ToolContext } from './context.js';
import type { answerCacheFor } from './fast-path.js';
import { jsonRpcError, parseJson, sendResponse } from './json-rpc.js';
import { isListenRequest, type SessionListens } from './listen.js';
import { checkBatch, checkParams, METHOD_NOT_FOUND, subscribeRefusal } from './request-guards.js';
import { withLegacyResourceNotFound } from './resource-not-found.js';
import { createMcpServer } from './server.js';

type AnswerCache = ReturnType<typeof answerCacheFor>;

export interface PostHandlerDeps {
  ctx: ToolContext;
  /** The SDK's handler for the stateless revision. */
  modern: ReturnType<typeof createMcpHandler>;
  /** The stateless revision's subscriptions/listen streams. */
  listens: SessionListens;
  /** The endpoint's public URL, for the web Request handed to the SDK. */
  endpoint: string;
  answers: AnswerCache;
}

/**
 * Refuses what the SDK should never see: a batch that would buy many calls for one request (it
 * counts each message against the budget, and is refused where the revision has none), and
 * params that are not an object. Returns true when it answered.
 */
async function refusedEnvelope(request: FastifyRequest, reply: FastifyReply, parsedBody: unknown): Promise<boolean> {
  const version = request.headers['mcp-protocol-version'];
  if (Array.isArray(parsedBody) && parsedBody.length > 0) {
    const batch = checkBatch(parsedBody, typeof version === 'string' ? version : undefined);
    if (typeof batch !== 'number') {
      jsonRpcError(reply, 400, batch.code, batch.message);
      return true;
    }
    // The route's own hook counted the first.
    await request.server.chargeRateLimit(request, reply, batch - 1);
  }
  // A client that declares the stateless revision (2026-07-28 or later) has no `initialize`.
  const stateless = typeof version === 'string' && version >= '2026-07-28';
  const badParams = checkParams(parsedBody, !stateless);
  if (!badParams) return false;
  jsonRpcError(reply, 200, badParams.code, badParams.message, badParams.id);
  return true;
}

/** The request as the SDK reads it: a web Request whose Accept always allows JSON. */
function webRequestOf(request: FastifyRequest, endpoint: string, text: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // Answers are always JSON; a client that sends no Accept (plain curl) must not get a 406.
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(endpoint, { method: 'POST', headers, body: text });
}

function authInfoOf(request: FastifyRequest): AuthInfo | undefined {
  const identity = request.identity;
  return identity.kind === 'client'
    ? { token: '', clientId: identity.clientId, scopes: [...identity.scopes], extra: { identity } }
    : undefined;
}

/**
 * POST /api/mcp. Requests of the 2026-07-28 revision (an envelope in `_meta`) go to the SDK's
 * modern handler; older clients (`initialize` first) to a per-request streamable-HTTP transport
 * in JSON mode. A fresh McpServer serves each request, as the SDK requires.
 */
export function mcpPostHandler({ ctx, modern, listens, endpoint, answers }: PostHandlerDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const text = typeof request.body === 'string' ? request.body : '';
    // Parse once and hand the SDK the result, rather than letting it re-read the body for the
    // classification and again for the transport. Unparsable text goes through as it is, for
    // the SDK to answer with -32700.
    const parsedBody = parseJson(text);
    if (await refusedEnvelope(request, reply, parsedBody)) return reply;
    // The fast path (src/mcp/fast-path.ts): a successful read answer kept for this content.
    const fast = answers?.candidate(parsedBody, request.headers);
    const kept = fast && answers?.lookup(fast);
    if (kept) {
      // Only successful answers of read-only calls are kept: logged as reads are (sampled).
      request.answeredAsRead = true;
      return reply.code(kept.status).headers(kept.headers).send(kept.body);
    }
    // What the tool tells it drew on, collected while the SDK answers (answer-scope.ts).
    const note = fast ? new AnswerNote() : undefined;
    const keep = fast && answers?.keeper(fast, note);

    const webRequest = webRequestOf(request, endpoint, text);
    const legacy = await isLegacyRequest(webRequest, parsedBody);
    const authInfo = authInfoOf(request);
    const options = { ...(parsedBody === undefined ? {} : { parsedBody }), ...(authInfo ? { authInfo } : {}) };
    if (!legacy) {
      if (isListenRequest(parsedBody)) return listens.serve(request, reply, webRequest, options, parsedBody);
      return sendResponse(reply, await withAnswerNote(note, () => modern.fetch(webRequest, options)), keep);
    }
    const noSubscribe = subscribeRefusal(parsedBody);
    if (noSubscribe) return jsonRpcError(reply, 200, METHOD_NOT_FOUND, noSubscribe.message, noSubscribe.id);

    const server = createMcpServer(ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      // An initialize-era revision says -32002 for an unknown resource (resource-not-found.ts).
      const legacyCodes = (body: string) => withLegacyResourceNotFound(parsedBody, body);
      const response = await withAnswerNote(note, () => transport.handleRequest(webRequest, options));
      return await sendResponse(reply, response, keep, legacyCodes);
    } finally {
      void transport.close();
      void server.close();
    }
  };
}
