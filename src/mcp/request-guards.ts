import { z } from 'zod';

/**
 * Checks on a parsed JSON-RPC body made before the SDK sees it: what one request may cost, and
 * a short -32602 where the SDK would answer a malformed `initialize` (-32603) or `tools/call`
 * (-32602) with a raw validation dump.
 */

/** Most messages one JSON-RPC batch may carry (2025-03-26 clients only; later revisions have none). */
export const MCP_MAX_BATCH = 10;

/** Revisions that allow JSON-RPC batches: only 2025-03-26 (2025-06-18 removed them). */
const BATCH_REVISIONS = new Set(['2025-03-26']);

export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

export interface GuardRefusal {
  code: number;
  message: string;
  id: string | number | null;
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * A batch is refused when the request's revision (MCP-Protocol-Version, sent by every client from
 * 2025-06-18 on) has none, and when it is larger than MCP_MAX_BATCH. Returns the number of
 * messages otherwise.
 */
export function checkBatch(body: unknown[], protocolVersion: string | undefined): GuardRefusal | number {
  if (protocolVersion !== undefined && !BATCH_REVISIONS.has(protocolVersion))
    return {
      code: INVALID_REQUEST,
      message: `JSON-RPC batches are not part of MCP revision ${protocolVersion.slice(0, 40)}: send one message per request.`,
      id: null,
    };
  if (body.length > MCP_MAX_BATCH)
    return {
      code: INVALID_REQUEST,
      message: `A JSON-RPC batch may hold at most ${MCP_MAX_BATCH} messages; this one holds ${body.length}.`,
      id: null,
    };
  return body.length;
}

const InitializeParams = z.object({
  protocolVersion: z.string({ error: 'protocolVersion must be a string' }),
  capabilities: z.record(z.string(), z.unknown(), { error: 'capabilities must be an object' }),
  clientInfo: z.object(
    {
      name: z.string({ error: 'clientInfo.name must be a string' }),
      version: z.string({ error: 'clientInfo.version must be a string' }),
    },
    { error: 'clientInfo must be an object with name and version' },
  ),
});

const ToolsCallParams = z.object({
  name: z.string({ error: 'name must be a string' }),
  arguments: z.record(z.string(), z.unknown(), { error: 'arguments must be an object' }).optional(),
});

/** Params schemas of the methods whose malformed params the SDK would answer with a raw dump. */
const PARAMS = new Map<string, z.ZodType>([
  ['initialize', InitializeParams],
  ['tools/call', ToolsCallParams],
]);

/**
 * A short -32602 for an `initialize` or `tools/call` whose params are missing or wrongly typed.
 * `initialize` is checked only when the client may have it (`hasInitialize`): in the stateless
 * revision it is a removed method, which the SDK answers 404 with -32601.
 */
export function checkParams(message: unknown, hasInitialize: boolean): GuardRefusal | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const method = (message as { method?: unknown }).method;
  if (method === 'initialize' && !hasInitialize) return undefined;
  // A Map, not an object: a method named "valueOf" or "constructor" must find nothing.
  const schema = typeof method === 'string' ? PARAMS.get(method) : undefined;
  if (!schema || !('id' in message)) return undefined;
  const parsed = schema.safeParse((message as { params?: unknown }).params);
  if (parsed.success) return undefined;
  const reasons = [
    ...new Set(parsed.error.issues.map((i) => (i.path.length === 0 ? 'params must be an object' : i.message))),
  ];
  return { code: INVALID_PARAMS, message: `Invalid ${method} params: ${reasons.join('; ')}.`, id: idOf(message) };
}

/**
 * Whether the body is the initialize handshake's closing notification (`notifications/initialized`,
 * no id), which initialize-era clients send once per connection and which asks for no work: it
 * does not cost the caller's budget. Parsed only when the text names that method.
 */
export function isInitializedNotification(text: string): boolean {
  if (text.length > 4096 || !text.includes('notifications/initialized')) return false;
  try {
    const message = JSON.parse(text) as { method?: unknown; id?: unknown } | null;
    return (
      typeof message === 'object' &&
      message !== null &&
      !Array.isArray(message) &&
      message.method === 'notifications/initialized' &&
      !('id' in message)
    );
  } catch {
    return false;
  }
}

/** The JSON-RPC id of a request body, for an error answered before the SDK reads it; null otherwise. */
export function requestIdOf(text: string): string | number | null {
  try {
    return idOf(JSON.parse(text));
  } catch {
    return null;
  }
}

/**
 * An initialize-era `resources/subscribe` or `resources/unsubscribe`: not served (the capabilities
 * say `subscribe: false`), because this stateless endpoint keeps no session and no stream to send
 * `notifications/resources/updated` on. The error says where a client follows a session instead.
 */
export function subscribeRefusal(message: unknown): GuardRefusal | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const method = (message as { method?: unknown }).method;
  if ((method !== 'resources/subscribe' && method !== 'resources/unsubscribe') || !('id' in message)) return undefined;
  return {
    code: METHOD_NOT_FOUND,
    message: `${method} is not served on this stateless endpoint (resources.subscribe is false): follow a session with subscriptions/listen on MCP revision 2026-07-28, or with GET /api/stages/events?sessionId=<id> (Server-Sent Events).`,
    id: idOf(message),
  };
}
