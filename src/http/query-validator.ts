import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { LruCache, stringBytes } from '../core/lru-cache.js';

/** A field's parse, remembered: its output, or that it failed (then the whole object is parsed again for its errors). */
type Outcome = { ok: true; value: unknown } | { ok: false };

// Per field: values people and agents send recur (dept=69, limit=20); a flood of distinct ones
// only cycles through the cache (a value of at most REMEMBERED_LENGTH characters and its outcome
// take about half a kilobyte: some two thousand values a field).
const REMEMBERED_BYTES_PER_FIELD = 1024 * 1024;
// Longer values are parsed every time rather than kept.
const REMEMBERED_LENGTH = 120;

class FieldMemo {
  readonly #values = new LruCache<string, Outcome>(REMEMBERED_BYTES_PER_FIELD, (text) => stringBytes(text) + 400);
  readonly absent: unknown;
  constructor(readonly schema: z.ZodType) {
    const absent = schema.safeParse(undefined);
    this.absent = absent.success ? absent.data : undefined;
  }

  parse(text: string): Outcome {
    let outcome = this.#values.get(text);
    if (outcome) return outcome;
    const result = this.schema.safeParse(text);
    // A list (days) is shared by every request that sent the same text: frozen, so none can alter it.
    outcome = result.success ? { ok: true, value: freeze(result.data) } : { ok: false };
    if (text.length <= REMEMBERED_LENGTH) this.#values.set(text, outcome);
    return outcome;
  }
}

function freeze(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? Object.freeze(value) : value;
}

/**
 * The validator of a query string whose schema is `z.object(shape)` refined by `refine`: the same
 * output as that schema's, key for key and in the same order, with each field's value parsed by
 * the field's own schema once and then remembered. Anything else — a value that fails, a repeated
 * parameter (an array), a combination `holds` rejects — goes to the whole schema, so that every
 * error is the one it gives. `test/http/query-validator.test.ts` checks both agree on thousands
 * of query strings.
 */
export function memoizedQueryValidator<RouteSchema>(
  shape: Record<string, z.ZodType>,
  whole: z.ZodType,
  holds: (value: Record<string, unknown>) => boolean,
): FastifySchemaCompiler<RouteSchema> {
  const fields = Object.entries(shape).map(([name, schema]) => [name, new FieldMemo(schema)] as const);
  return (route) => {
    if (route.httpPart !== 'querystring')
      throw new Error(`memoizedQueryValidator validates query strings, not ${route.httpPart}`);
    const slow = validatorCompiler({ method: route.method, url: route.url, httpPart: route.httpPart, schema: whole });
    return (data) => {
      const input = data as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, memo] of fields) {
        const given = Object.hasOwn(input, name);
        let value: unknown;
        if (given) {
          const text = input[name];
          if (typeof text !== 'string') return slow(data);
          const outcome = memo.parse(text);
          if (!outcome.ok) return slow(data);
          value = outcome.value;
        } else value = memo.absent;
        // z.object keeps a key that was given, even when its value is undefined ("" for absent).
        if (given || value !== undefined) out[name] = value;
      }
      return holds(out) ? { value: out } : slow(data);
    };
  };
}
