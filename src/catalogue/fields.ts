import { z } from 'zod';
import { EMPTY, union } from './field-union.js';
import { canonicalDeptCode } from './geography.js';

export { typedFormOf } from './field-union.js';
export { WEEKDAY_NAMES, weekdaysField } from './weekday-field.js';

/*
 * One definition per input field, shared by REST (query strings: every value is text) and MCP
 * (JSON arguments, as language models and the Inspector write them: numbers for codes, numeric
 * strings, "true", "" for a field they do not use). Each field accepts its typed value and its
 * text form, and an optional field takes "" as absent. Every branch is a plain JSON Schema
 * shape, so the schema published in tools/list says exactly what is accepted; only the
 * messages, one per field, are written by hand.
 */

/**
 * A decimal integer from 1 to `max` without leading zeros, as regex alternatives: every shorter
 * length in one ("[1-9]\\d{0,2}"), then, digit by digit, the numbers of max's length below it,
 * then max itself. Kept short: tools/list publishes it in every count field's schema.
 */
export function upToPattern(max: number): string {
  const digits = String(max);
  const n = digits.length;
  const parts: string[] = [];
  if (n === 2) parts.push('[1-9]');
  if (n > 2) parts.push(n === 3 ? '[1-9]\\d?' : `[1-9]\\d{0,${n - 2}}`);
  for (let i = 0; i < n; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(digits[i]) - 1;
    if (high < low) continue;
    const rest = n - i - 1;
    const range = low === high ? String(low) : `[${low}-${high}]`;
    parts.push(`${digits.slice(0, i)}${range}${rest === 0 ? '' : rest === 1 ? '\\d' : `\\d{${rest}}`}`);
  }
  parts.push(digits);
  return parts.join('|');
}

/** Non-empty text, trimmed, at most `max` characters (counted as sent, in code points). */
export function textField(name: string, max: number, what = 'a text') {
  return z
    .string({ error: `${name} must be ${what}` })
    .regex(/\S/, { error: `${name} must not be empty` })
    .regex(new RegExp(`^[^]{0,${max}}$`, 'u'), { error: `${name} must be at most ${max} characters` })
    .transform((v) => v.trim());
}

/** Optional text, trimmed, at most `max` characters; "" is absent. */
export function optionalTextField(name: string, max: number, what = 'a text') {
  const text = z
    .string({ error: `${name} must be ${what}` })
    .regex(new RegExp(`^[^]{0,${max}}$`, 'u'), { error: `${name} must be at most ${max} characters` });
  return union([EMPTY, text], text, `${name} must be ${what} of at most ${max} characters`)
    .transform((v) => (v === '' ? undefined : v.trim()))
    .optional();
}

/**
 * The characters that count as a letter or digit for place names: those that `searchKey`
 * (text.ts) folds to a-z or 0-9 — ASCII letters and digits, Latin letters with accents, œ, æ,
 * the Kelvin and Ångström signs. Spelled out because JSON Schema carries a regex, not code; a
 * test checks it against searchKey over every character of the Basic Multilingual Plane (no
 * other plane folds to ASCII).
 */
export const SEARCHABLE_CHARACTER =
  '[0-9A-Za-z\\u00C0-\\u00CF\\u00D1-\\u00D6\\u00D9-\\u00DD\\u00E0-\\u00EF\\u00F1-\\u00F6\\u00F9-\\u00FD\\u00FF-\\u010F\\u0112-\\u0125\\u0128-\\u0130\\u0134-\\u0137\\u0139-\\u013E\\u0143-\\u0148\\u014C-\\u0165\\u0168-\\u017E\\u01A0\\u01A1\\u01AF\\u01B0\\u01CD-\\u01DC\\u01DE-\\u01E3\\u01E6-\\u01ED\\u01F0\\u01F4\\u01F5\\u01F8-\\u01FD\\u0200-\\u021B\\u021E\\u021F\\u0226-\\u0233\\u1E00-\\u1E99\\u1EA0-\\u1EF9\\u212A\\u212B]';

/**
 * The same class with its characters written as themselves rather than as \u escapes: the same
 * regex, but its JSON (tools/list, the OpenAPI document) is about a third as long.
 */
export const SEARCHABLE_CHARACTER_LITERAL = SEARCHABLE_CHARACTER.replace(/\\u([0-9A-F]{4})/g, (_, hex: string) =>
  String.fromCharCode(Number.parseInt(hex, 16)),
);

/**
 * A place name matched ignoring case, accents and punctuation; "" is absent. One that folds to
 * nothing ("!!!", "---", a zero-width space) would match every session: refused, naming the
 * field, since the caller surely meant something else.
 */
export function locationNameField(name: string, max: number, examples: string[]) {
  const text = z
    .string({ error: `${name} must be a text` })
    .regex(new RegExp(`^[^]{0,${max}}$`, 'u'), { error: `${name} must be at most ${max} characters` })
    .regex(new RegExp(SEARCHABLE_CHARACTER_LITERAL), { error: `${name} must contain at least one letter or digit` });
  return union(
    [EMPTY, text],
    text,
    (input) =>
      typeof input === 'string'
        ? `${name} must be at most ${max} characters and contain at least one letter or digit`
        : `${name} must be a text`,
    { examples },
  )
    .transform((v) => (v === '' ? undefined : v.trim()))
    .optional();
}

/** A count from 1 to `max`: an integer or its digits; `fallback` when absent or "". */
export function countField(name: string, max: number, fallback: number) {
  const message = `${name} must be an integer from 1 to ${max}`;
  const typed = z.int({ error: message }).min(1, { error: message }).max(max, { error: message });
  const text = z
    .string({ error: message })
    .regex(new RegExp(`^\\s*0*(?:${upToPattern(max)})\\s*$`), { error: message });
  return union([EMPTY, typed, text], typed, message, { default: fallback, examples: [Math.min(5, max)] })
    .transform((v) => (v === '' ? fallback : Number(v)))
    .default(fallback);
}

/** true or false, also written "true"/"false" (any case) or "1"/"0"; false when absent or "". */
export function flagField(name: string) {
  const message = `${name} must be true or false`;
  const typed = z.boolean({ error: message });
  const text = z
    .string({ error: message })
    .regex(/^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])$/, { error: message });
  return union([EMPTY, typed, text], typed, message, { default: false, examples: [true] })
    .transform((v) => (typeof v === 'boolean' ? v : v === '1' || v.toLowerCase() === 'true'))
    .default(false);
}

export const PRICE_MAX = 100_000;

/** An amount of euros from 0 to PRICE_MAX: a number or its decimal digits; "" is absent. */
export function euroAmountField(name: string) {
  const message = (input: unknown) => {
    const n = typeof input === 'number' ? input : typeof input === 'string' ? Number(input.trim()) : Number.NaN;
    if (typeof input === 'string' && input.trim() === '') return `${name} must be a number of euros`;
    if (n < 0) return `${name} must not be negative`;
    if (n > PRICE_MAX) return `${name} must be at most ${PRICE_MAX}`;
    return `${name} must be a number of euros, e.g. 250 or 249.90`;
  };
  const typed = z
    .number({ error: (iss) => message(iss.input) })
    .min(0, { error: (iss) => message(iss.input) })
    .max(PRICE_MAX, { error: (iss) => message(iss.input) });
  // 0 to 99999.x, or 100000 exactly (PRICE_MAX is 10^5).
  const text = z
    .string()
    .regex(/^\s*0*(?:\d{1,5}(?:\.\d+)?|100000(?:\.0+)?)\s*$/, { error: (iss) => message(iss.input) });
  return union([EMPTY, typed, text], typed, message, { examples: [250] })
    .transform((v) => (v === '' ? undefined : Number(v)))
    .optional();
}

/**
 * A department code as written: "69", "1" or "01", "2a" or "2A", "974"; or as a number (69, 1,
 * 974), as models often send codes. The regex and the integer ranges are the 101 departments'
 * codes exactly (a test checks them against the geography); "" is absent.
 */
export function departmentField(name: string) {
  const message = (input: unknown) =>
    typeof input === 'string' || typeof input === 'number'
      ? `unknown department code "${String(input).slice(0, 20)}": use 1 to 95 (01 to 09 with or without the 0; 2A and 2B for Corsica, no 20), 971 to 974 or 976`
      : `${name} must be a department code`;
  const text = z
    .string({ error: (iss) => message(iss.input) })
    .regex(/^\s*(?:0?[1-9]|1\d|2[1-9ABab]|[3-8]\d|9[0-5]|97[1-46])\s*$/, { error: (iss) => message(iss.input) });
  const integer = (min: number, max: number) =>
    z
      .int({ error: (iss) => message(iss.input) })
      .min(min, { error: (iss) => message(iss.input) })
      .max(max, { error: (iss) => message(iss.input) });
  return union(
    [
      EMPTY,
      text,
      integer(1, 19),
      integer(21, 95),
      integer(971, 974),
      z.literal(976, { error: (iss) => message(iss.input) }),
    ],
    text,
    message,
    { examples: ['69', '2A', '974'] },
  )
    .transform((v, ctx) => {
      if (v === '') return undefined;
      const code = canonicalDeptCode(String(v));
      if (!code) {
        ctx.addIssue({ code: 'custom', message: message(v) });
        return z.NEVER;
      }
      return code;
    })
    .optional();
}

/** A calendar date, YYYY-MM-DD (a real one: no 30 February); "" is absent. */
export function dateField(name: string) {
  const message = (input: unknown) =>
    typeof input === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(input)
      ? `${name} must be a real calendar date in YYYY-MM-DD form`
      : `${name} must be a date in YYYY-MM-DD form`;
  const typed = z.iso.date({ error: (iss) => message(iss.input) });
  return union([EMPTY, typed], typed, message, { examples: ['2030-03-05'] })
    .transform((v) => (v === '' ? undefined : v))
    .optional();
}

/** One of `values`; "" is absent. */
export function choiceField<const T extends readonly [string, ...string[]]>(
  name: string,
  values: T,
  meta: { examples?: unknown[] } = {},
) {
  const message = `${name} must be one of: ${values.join(', ')}`;
  const typed = z.enum(values, { error: message });
  return union([EMPTY, typed], typed, message, meta)
    .transform((v) => (v === '' ? undefined : (v as T[number])))
    .optional();
}

/** An optional count from 1 to `max`: an integer or its digits; "" is absent. */
export function optionalCountField(name: string, max: number, examples: number[]) {
  const message = `${name} must be an integer from 1 to ${max}`;
  const typed = z.int({ error: message }).min(1, { error: message }).max(max, { error: message });
  const text = z
    .string({ error: message })
    .regex(new RegExp(`^\\s*0*(?:${upToPattern(max)})\\s*$`), { error: message });
  return union([EMPTY, typed, text], typed, message, { examples })
    .transform((v) => (v === '' ? undefined : Number(v)))
    .optional();
}

/** An opaque token handed back by the service ("" is absent): letters, digits, - and _. */
export function tokenField(name: string, max: number) {
  const message = `${name} must be the nextCursor of a previous answer`;
  const text = z.string({ error: message }).regex(new RegExp(`^[A-Za-z0-9_-]{1,${max}}$`), { error: message });
  return union([EMPTY, text], text, message, { examples: ['eyJ2IjoxfQ'] })
    .transform((v) => (v === '' ? undefined : v))
    .optional();
}

/** A closer name among `names` for a mistyped argument (department → dept, max_price → maxPrice). */
function suggestion(key: string, names: readonly string[]): string | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const k = fold(key);
  const within = (short: string) => {
    let i = 0;
    for (const c of k) if (c === short[i]) i++;
    return i === short.length;
  };
  return (
    names.find((n) => fold(n) === k) ??
    names.find((n) => fold(n).length >= 3 && within(fold(n))) ??
    names.find((n) => k.startsWith(fold(n)) || k.endsWith(fold(n)))
  );
}

/**
 * Tool arguments: the fields, and nothing else. An argument the tool does not know is refused
 * by name, never dropped: a model that wrote `department` would otherwise get all of France and
 * believe it filtered.
 */
/** A session's id as a tool argument (check_availability, hold_place). */
export const sessionIdField = z
  .uuid({ error: 'sessionId must be a session id (a UUID), as given by search_stages' })
  .describe('Session id, from search_stages or get_centre.');

export function argumentsObject<S extends z.ZodRawShape>(shape: S) {
  const names = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code !== 'unrecognized_keys') return undefined;
      const unknown = iss.keys.map((k) => {
        const close = suggestion(k, names);
        return `"${k.slice(0, 40)}"${close ? ` (did you mean ${close}?)` : ''}`;
      });
      return `unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the arguments are ${names.join(', ')}`;
    },
  });
}
