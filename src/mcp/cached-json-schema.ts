import type { z } from 'zod';

type JsonSchemaConverter = (options: { target: string }) => Record<string, unknown>;
interface StandardWithJson {
  jsonSchema: { input: JsonSchemaConverter; output: JsonSchemaConverter };
}

const done = new WeakSet<object>();

/**
 * The MCP SDK turns a tool's zod schemas into JSON Schema on every tools/list and tools/call of
 * every (per-request) server. The schemas never change, so convert each once: this replaces the
 * schema's Standard Schema JSON converters with memoised ones. Measured: see bench/ and the issue
 * notes (the conversion was the largest cost of a tools/call).
 */
export function cachedJsonSchema<T extends z.ZodType>(schema: T): T {
  if (done.has(schema)) return schema;
  const standard = schema['~standard'] as unknown as StandardWithJson & Record<string, unknown>;
  const cache = new Map<string, Record<string, unknown>>();
  const memo =
    (io: 'input' | 'output'): JsonSchemaConverter =>
    (options) => {
      const key = `${io}:${options.target}`;
      let json = cache.get(key);
      if (!json) {
        json = standard.jsonSchema[io](options);
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
