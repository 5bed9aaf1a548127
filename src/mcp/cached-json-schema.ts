import type { z } from 'zod';
import { type CompactOptions, compactJsonSchema } from './compact-schema.js';

type JsonSchemaConverter = (options: { target: string }) => Record<string, unknown>;
interface StandardWithJson {
  jsonSchema: { input: JsonSchemaConverter; output: JsonSchemaConverter };
}

const done = new WeakSet<object>();

/**
 * The MCP SDK turns a tool's zod schemas into JSON Schema on every tools/list and tools/call of
 * every (per-request) server. The schemas never change, so convert each once: this replaces the
 * schema's Standard Schema JSON converters with memoised ones. Measured: see bench/ and the issue
 * notes (the conversion was the largest cost of a tools/call). The JSON Schema is made compact
 * (compact-schema.ts) on the way.
 */
export function cachedJsonSchema<T extends z.ZodType>(schema: T, options: CompactOptions = {}): T {
  if (done.has(schema)) return schema;
  const standard = schema['~standard'] as unknown as StandardWithJson & Record<string, unknown>;
  const cache = new Map<string, Record<string, unknown>>();
  const memo =
    (io: 'input' | 'output'): JsonSchemaConverter =>
    (converter) => {
      const key = `${io}:${converter.target}`;
      let json = cache.get(key);
      if (!json) {
        json = compactJsonSchema(standard.jsonSchema[io](converter), io, options);
        cache.set(key, json);
      }
      return json;
    };
  Object.defineProperty(schema, '~standard', {
    value: { ...standard, jsonSchema: { input: memo('input'), output: memo('output') } },
    configurable: true,
    enumerable: false,
  });
  done.add(schema);
  return schema;
}
