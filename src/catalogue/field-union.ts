import { z } from 'zod';

/*
 * The shape every shared field is built on (fields.ts): a union of its typed value, its text form
 * and "" for absent, remembering which branch is the typed one for the OpenAPI document.
 */

/** "" means "not given": forms and models send it for fields they leave empty. */
export const EMPTY = z.literal('');

/**
 * Which branch of a field's union is its typed value: the OpenAPI document shows that one, since
 * in a query string every value is text and `type: integer` already means "an integer, written".
 */
const typedBranch = new WeakMap<object, z.ZodType>();

export function union<const T extends readonly [z.ZodType, ...z.ZodType[]]>(
  options: T,
  typed: z.ZodType,
  message: string | ((input: unknown) => string),
  meta: { default?: unknown; examples?: unknown[] } = {},
) {
  const error = typeof message === 'string' ? message : (iss: { input?: unknown }) => message(iss.input);
  // meta() returns a new schema: the one registered must be the one the field is built on.
  const schema = z.union(options, { error }).meta(meta);
  typedBranch.set(schema, typed);
  return schema;
}

/** The typed form of a shared field (see openapi.ts), looking through its default, optional and transform. */
export function typedFormOf(field: z.ZodType): z.ZodType | undefined {
  let schema: unknown = field;
  while (schema) {
    const typed = typedBranch.get(schema as object);
    if (typed) return typed;
    const def = (schema as { _zod: { def: { innerType?: unknown; in?: unknown } } })._zod.def;
    schema = def.innerType ?? def.in;
  }
  return undefined;
}
