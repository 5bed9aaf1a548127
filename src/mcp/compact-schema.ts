/*
 * Tool schemas as tools/list publishes them, made small without changing what they accept: every
 * host pays a tool list in its model's context on every turn. The SDK validates arguments with the
 * zod schemas themselves; this only rewrites the JSON Schema they produce, keeping its meaning:
 * - a repeated shape (a pattern of zod's date, date-time or uuid formats, a field's text branch) is
 *   written once under `$defs` and referenced (`$ref` beside other keywords is 2020-12 JSON Schema);
 * - "at most N characters", a pattern in fields.ts, is `maxLength` (both count code points);
 * - `$schema` is left out (the dialect MCP assumes);
 * - `examples` are left out (each field's description gives them);
 * - `{"type":"string","const":""}` is `{"const":""}`, and so for `enum` (the values fix the type);
 * Output schemas describe what the service writes, not what it accepts: there the pattern zod adds
 * to a `format` (date, date-time, uuid), which only restates the format, and the ±2^53−1 bounds it
 * writes on every integer are left out (and a minimum of 0: counts and places), and so are the fields' descriptions (the tool's description
 * says what its answer means; the REST OpenAPI document keeps them all), which fields are required
 * and that no other field appears: an output schema then still holds for every answer, is shorter,
 * and a new field in an answer is no break.
 */

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;
/** The formats whose pattern zod writes only to restate them. */
const FORMAT_PATTERNS = new Set(['date', 'date-time', 'uuid']);
/** Shapes shorter than this are cheaper inline than as a reference. */
const MIN_SHARED_CHARS = 80;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Children schemas of a schema object: every value that is a schema or a list of schemas. */
function* children(node: Json): Generator<[Json | unknown[], string | number]> {
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === '$defs') {
      if (isObject(value)) for (const k of Object.keys(value)) yield [value, k];
    } else if (key === 'items' || key === 'not' || key === 'additionalProperties') {
      if (isObject(value)) yield [node, key];
    } else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf') {
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield [value, i];
    }
  }
}

function at(parent: Json | unknown[], key: string | number): unknown {
  return (parent as Record<string | number, unknown>)[key];
}

function set(parent: Json | unknown[], key: string | number, value: unknown): void {
  (parent as Record<string | number, unknown>)[key] = value;
}

const typeOf = (v: unknown) =>
  typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'number' : '';

/** Whether a `const` or `enum` already fixes the type the node states. */
function sameType(node: Json): boolean {
  const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (!values || values.length === 0) return false;
  const type = node.type === 'integer' ? 'number' : node.type;
  return values.every((v) => typeOf(v) === type && (node.type !== 'integer' || Number.isInteger(v)));
}

/** The pattern fields.ts writes for "at most N characters" (counted in code points, as maxLength counts). */
const AT_MOST = /^\^\[\^\]\{0,(\d+)\}\$$/;

/**
 * `^[^]{0,N}$` (fields.ts: at most N code points; zod's max() would count UTF-16 units) is
 * maxLength N, which JSON Schema counts in code points too; moved up from an allOf of patterns.
 */
function lengthPatternToMaxLength(node: Json): void {
  const atMost = (p: unknown) => (typeof p === 'string' ? AT_MOST.exec(p)?.[1] : undefined);
  const own = atMost(node.pattern);
  if (own !== undefined && node.maxLength === undefined) {
    delete node.pattern;
    node.maxLength = Number(own);
  }
  if (!Array.isArray(node.allOf) || node.maxLength !== undefined) return;
  const all = node.allOf as unknown[];
  const i = all.findIndex((s) => isObject(s) && Object.keys(s).length === 1 && atMost(s.pattern) !== undefined);
  if (i < 0) return;
  node.maxLength = Number(atMost((all[i] as Json).pattern));
  all.splice(i, 1);
  const patterns = all.filter((s) => isObject(s) && Object.keys(s).length === 1 && typeof s.pattern === 'string');
  if (all.length === 1 && patterns.length === 1 && node.pattern === undefined) {
    node.pattern = (patterns[0] as Json).pattern;
    delete node.allOf;
  }
}

/** Local rewrites of one schema object (in place). */
function simplify(node: Json, output: boolean, isRoot = false): void {
  if (typeof node.type === 'string' && sameType(node)) delete node.type;
  if (output && typeof node.format === 'string' && FORMAT_PATTERNS.has(node.format)) delete node.pattern;
  lengthPatternToMaxLength(node);
  if (output && !isRoot) delete node.description;
  if (output) {
    delete node.required;
    if (node.additionalProperties === false) delete node.additionalProperties;
  }
  // Every field's description gives its examples already.
  if (!output) delete node.examples;
  if (output && node.type === 'integer') {
    if (node.maximum === SAFE) delete node.maximum;
    if (node.minimum === -SAFE || node.minimum === 0) delete node.minimum;
  }
  // A format's pattern (zod writes one for date, date-time, uuid) becomes its own shape, so that
  // every field of that format can share it; the field keeps its description beside the reference.
  if (typeof node.format === 'string' && typeof node.pattern === 'string' && Object.keys(node).length > 3) {
    const shape = { type: node.type, format: node.format, pattern: node.pattern };
    delete node.type;
    delete node.format;
    delete node.pattern;
    const rest = { ...node };
    for (const k of Object.keys(node)) delete node[k];
    Object.assign(node, { allOf: [shape] }, rest);
    node['x-split'] = true;
  }
}

function walk(node: Json, visit: (node: Json, parent: Json | unknown[], key: string | number) => void): void {
  for (const [parent, key] of children(node)) {
    const child = at(parent, key);
    if (isObject(child)) {
      visit(child, parent, key);
      walk(child, visit);
    }
  }
}

export interface CompactOptions {
  /**
   * Names of the shared shapes that are not a format: a shape whose JSON contains the given text
   * gets that name (the others: their format, or the property they first appear in).
   */
  names?: Record<string, string>;
  /**
   * Output properties published as a plain object (or a list of objects): the catalogue's records
   * (a session, a centre: the spec's fields, described in the OpenAPI document) and records another
   * tool describes in full (an article: get_article), which a model reads in the answer anyway.
   * tools/list then stays within its budget (test/mcp/tool-list.test.ts).
   */
  opaque?: string[];
}

/** The schema, compact (see the top of this file). */
export function compactJsonSchema(schema: Json, io: 'input' | 'output', options: CompactOptions = {}): Json {
  const { names = {}, opaque = [] } = options;
  const root = structuredClone(schema) as Json;
  if (io === 'output' && opaque.length > 0) {
    const collapse = (node: Json) => {
      if (!isObject(node.properties)) return;
      const props = node.properties;
      for (const key of opaque) {
        if (!(key in props)) continue;
        const list = isObject(props[key]) && props[key].type === 'array';
        props[key] = list ? { type: 'array', items: { type: 'object' } } : { type: 'object' };
      }
    };
    collapse(root);
    walk(root, collapse);
  }
  // Tool schemas are 2020-12 JSON Schema without saying so (MCP 2025-11-25: "defaults to 2020-12
  // when no $schema is present"); the dialect URL on every schema of the list bought nothing.
  delete root.$schema;
  simplify(root, io === 'output', true);
  walk(root, (node) => simplify(node, io === 'output'));

  // Count every shape by its JSON, remembering where it first appears.
  const seen = new Map<string, { count: number; property: string | undefined }>();
  const count = (node: Json, property: string | undefined) => {
    for (const [parent, key] of children(node)) {
      const child = at(parent, key);
      if (!isObject(child)) continue;
      const name = parent === node.properties && typeof key === 'string' ? key : property;
      const text = JSON.stringify(child);
      const entry = seen.get(text);
      if (entry) entry.count++;
      else seen.set(text, { count: 1, property: name });
      count(child, name);
    }
  };
  count(root, undefined);

  const defs: Json = isObject(root.$defs) ? root.$defs : {};
  const refs = new Map<string, string>();
  const shared = [...seen].filter(([text, e]) => e.count > 1 && text.length >= MIN_SHARED_CHARS);
  // Largest first: a shape inside a larger shared one is then found once, in its definition.
  shared.sort((a, b) => b[0].length - a[0].length);
  for (const [text, entry] of shared) {
    const shape = JSON.parse(text) as Json;
    const hinted = Object.entries(names).find(([, marker]) => text.includes(JSON.stringify(marker).slice(1, -1)))?.[0];
    let name = hinted ?? (typeof shape.format === 'string' ? shape.format : (entry.property ?? 'shape'));
    while (name in defs) name = `${name}_`;
    defs[name] = shape;
    refs.set(text, `#/$defs/${name}`);
  }
  if (refs.size === 0) return finish(root);

  const replace = (node: Json) => {
    for (const [parent, key] of children(node)) {
      const child = at(parent, key);
      if (!isObject(child)) continue;
      const ref = refs.get(JSON.stringify(child));
      // A definition itself keeps its content; every use of it becomes a reference.
      if (ref && !(parent === defs && ref === `#/$defs/${key}`)) set(parent, key, { $ref: ref });
      else replace(child);
    }
  };
  root.$defs = defs;
  replace(root);
  return finish(root);
}

/**
 * A definition used once (zod's named shapes, or a shape repeated only inside another shared one)
 * goes back where it is used: a reference there costs more than it saves.
 */
function inlineSingleUses(root: Json): void {
  const defs = root.$defs;
  if (!isObject(defs)) return;
  const uses = new Map<string, number>();
  const tally = (node: Json) => {
    if (typeof node.$ref === 'string') uses.set(node.$ref, (uses.get(node.$ref) ?? 0) + 1);
  };
  tally(root);
  walk(root, tally);
  const once = Object.keys(defs)
    .map((name) => `#/$defs/${name}`)
    .filter((ref) => (uses.get(ref) ?? 0) <= 1);
  if (once.length === 0) return;
  const inline = (node: Json) => {
    if (typeof node.$ref === 'string' && once.includes(node.$ref)) {
      const name = node.$ref.slice('#/$defs/'.length);
      delete node.$ref;
      Object.assign(node, defs[name]);
    }
  };
  // Until none is left: an inlined shape may hold the one use of another.
  for (let pass = 0; pass < 8 && once.some((ref) => JSON.stringify(root).includes(`"${ref}"`)); pass++) {
    inline(root);
    walk(root, inline);
  }
  for (const ref of once) delete defs[ref.slice('#/$defs/'.length)];
  if (Object.keys(defs).length === 0) delete root.$defs;
}

function finish(root: Json): Json {
  inlineSingleUses(root);
  return unsplit(root);
}

/** A format's split shape that no other field shared goes back where it was. */
function unsplit(root: Json): Json {
  const merge = (node: Json) => {
    if (node['x-split']) {
      delete node['x-split'];
      const all = node.allOf as unknown[];
      if (all.length === 1 && isObject(all[0]) && !('$ref' in all[0])) {
        const inner = all[0];
        delete node.allOf;
        const rest = { ...node };
        for (const k of Object.keys(node)) delete node[k];
        Object.assign(node, inner, rest);
      } else if (all.length === 1 && isObject(all[0])) {
        // allOf:[{$ref}] → $ref beside the other keywords.
        const ref = all[0].$ref;
        delete node.allOf;
        const rest = { ...node };
        for (const k of Object.keys(node)) delete node[k];
        Object.assign(node, { $ref: ref }, rest);
      }
    }
  };
  merge(root);
  walk(root, merge);
  return root;
}
