import type { FastifyReply } from 'fastify';

export const MCP_PATH = '/api/mcp';
export const MCP_BODY_LIMIT = 256 * 1024;

// JSON-RPC "server error" range, as the SDK uses for transport-level refusals.
export const TRANSPORT_ERROR = -32000;

export function jsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  data?: Record<string, unknown>,
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Sends the SDK's web Response. A JSON answer is complete: copy it in one piece, which costs far
 * less than Fastify piping a web stream. Anything else (the 2026 revision's subscription stream)
 * is streamed as it comes. `rewrite` adjusts a JSON answer's text before it is sent (and kept).
 */
export async function sendResponse(
  reply: FastifyReply,
  response: Response,
  keep?: (status: number, headers: [string, string][], body: string) => void,
  rewrite?: (body: string) => string,
): Promise<FastifyReply> {
  const type = response.headers.get('content-type') ?? '';
  if (response.body === null || !type.startsWith('application/json')) return reply.send(response);
  reply.code(response.status);
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers.push([name, value]);
  });
  for (const [name, value] of headers) reply.header(name, value);
  const text = await response.text();
  const body = rewrite ? rewrite(text) : text;
  reply.send(body);
  // As sent: Fastify completes a JSON content type with its charset.
  keep?.(
    response.status,
    headers.map(([name]) => [name, String(reply.getHeader(name))]),
    body,
  );
  return reply;
}
