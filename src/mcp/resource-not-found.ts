/*
 * The code of "resource not found", per revision, from each one's own text (server/resources.mdx,
 * "Error Handling"):
 * - 2024-11-05 to 2025-11-25: "Servers SHOULD return standard JSON-RPC errors for common failure
 *   cases: Resource not found: `-32002`";
 * - 2026-07-28 (SEP-2164): "Resource not found: `-32602` (Invalid Params)".
 * The SDK answers -32602 (with `data.uri`) on every revision; an initialize-era client gets its
 * revision's -32002 here instead, with the same message and data.
 */

export const RESOURCE_NOT_FOUND_BEFORE_2026 = -32002;
const INVALID_PARAMS = -32602;

type Message = { id?: unknown; method?: unknown; error?: { code?: unknown; data?: unknown } };

const asList = (value: unknown): Message[] =>
  (Array.isArray(value) ? value : [value]).filter((m): m is Message => typeof m === 'object' && m !== null);

/**
 * The SDK's answer to an initialize-era request, with each resources/read miss given -32002; the
 * answer as it was when the request read no resource or nothing was missing.
 */
export function withLegacyResourceNotFound(request: unknown, body: string): string {
  const reads = new Set(
    asList(request)
      .filter((m) => m.method === 'resources/read')
      .map((m) => m.id),
  );
  if (reads.size === 0) return body;
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return body;
  }
  let changed = false;
  for (const message of asList(answer)) {
    const data = message.error?.data as { uri?: unknown } | undefined;
    if (reads.has(message.id) && message.error?.code === INVALID_PARAMS && typeof data?.uri === 'string') {
      message.error.code = RESOURCE_NOT_FOUND_BEFORE_2026;
      changed = true;
    }
  }
  return changed ? JSON.stringify(answer) : body;
}
