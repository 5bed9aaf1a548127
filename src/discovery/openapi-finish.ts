/**
 * The last pass over the generated OpenAPI document, for what route schemas cannot say on their
 * own: the response headers the service really sends (rate limits, Retry-After, ETag), the event
 * stream's media type, an explicit
 * "no authentication" on the public reads, and no component that nothing refers to.
 */

type Json = Record<string, unknown>;
type Operation = { responses?: Record<string, Json>; security?: unknown[] };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export const RESPONSE_HEADERS: Record<string, Json> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the current window for this caller (IETF RateLimit header fields draft).',
    schema: { type: 'integer', minimum: 0, examples: [120] },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0, examples: [119] },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets.',
    schema: { type: 'integer', minimum: 0, examples: [60] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0, examples: [30] },
  },
  ETag: {
    description: 'Validator of this representation: send it back in If-None-Match (reads) or If-Match (writes).',
    schema: { type: 'string', examples: ['W/"3q2-7wEo4l1dKx8bYc0kA"'] },
  },
};

/** Responses that carry an ETag, by "METHOD path" (the routes that set one). */
export const ETAG_RESPONSES: Record<string, readonly string[]> = {
  'GET /api/stages': ['200', '304'],
  'GET /api/admin/centres/{id}': ['200'],
  'PUT /api/admin/centres/{id}': ['200', '201'],
  'GET /api/admin/sessions/{id}': ['200'],
  'PUT /api/admin/sessions/{id}': ['200', '201'],
  'PATCH /api/admin/sessions/{id}': ['200'],
  'POST /api/admin/sessions/{id}/places': ['200'],
};

/**
 * Answers that are a stream of Server-Sent Events, not JSON: the route's schema can only say a
 * string, which the generator files under application/json (and generated clients then wait
 * for the end of a JSON body that never comes).
 */
export const EVENT_STREAM_RESPONSES: Record<string, string> = { 'GET /api/stages/events': '200' };

/** Files a response's content under text/event-stream instead of application/json. */
function asEventStream(response: Json): void {
  const content = response.content as Record<string, unknown> | undefined;
  if (!content?.['application/json']) return;
  response.content = { 'text/event-stream': content['application/json'] };
}

/** 503 answers that say when to come back (the event stream: catalogue or capacity unavailable). */
export const RETRY_AFTER_503: ReadonlySet<string> = new Set(['GET /api/stages/events']);

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

function addHeaders(response: Json, names: string[]): void {
  if (names.length === 0 || typeof response.$ref === 'string') return;
  const headers = (response.headers ?? {}) as Json;
  for (const name of names) headers[name] ??= ref(name);
  response.headers = headers;
}

/** Every `#/components/<kind>/<name>` the document refers to, following references transitively. */
function usedComponents(doc: Json): Set<string> {
  const components = (doc.components ?? {}) as Record<string, Json>;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
        if (used.has(value)) continue;
        used.add(value);
        const [kind, name] = value.slice('#/components/'.length).split('/');
        visit(components[kind as string]?.[decodeURIComponent(name ?? '')]);
      } else visit(value);
    }
  };
  const { components: _skip, ...rest } = doc;
  visit(rest);
  return used;
}

export function finishOpenApi<T>(document: T): T {
  const doc = document as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${path}`;
      // Public reads need no credential: said explicitly, not left to be guessed.
      op.security ??= [];
      const responses = op.responses ?? {};
      // A rate-limited operation documents its 429; every answer it gives carries the counters.
      const limited = '429' in responses;
      for (const [status, response] of Object.entries(responses)) {
        const names = limited ? ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] : [];
        if (status === '429' || (status === '503' && RETRY_AFTER_503.has(key))) names.push('Retry-After');
        if (ETAG_RESPONSES[key]?.includes(status)) names.push('ETag');
        addHeaders(response, names);
        if (EVENT_STREAM_RESPONSES[key] === status) asEventStream(response);
      }
    }
  }
  doc.components ??= {};
  const components = doc.components as Record<string, Json>;
  components.headers = { ...(components.headers ?? {}), ...RESPONSE_HEADERS };
  // Drop what nothing refers to (the generator emits an input twin of every shared schema).
  const used = usedComponents(doc);
  for (const kind of ['schemas', 'headers', 'responses', 'parameters'] as const) {
    const group = components[kind];
    if (!group) continue;
    for (const name of Object.keys(group))
      if (!used.has(`#/components/${kind}/${encodeURIComponent(name)}`) && !used.has(`#/components/${kind}/${name}`))
        delete group[name];
    if (Object.keys(group).length === 0) delete components[kind];
  }
  // The generator lists shared schemas in the order their modules were first loaded: sorted by
  // name, the document is the same whatever loaded first.
  if (components.schemas)
    components.schemas = Object.fromEntries(
      Object.entries(components.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  return document;
}
