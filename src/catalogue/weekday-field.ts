import { z } from 'zod';
import { EMPTY, union } from './field-union.js';

/** Weekday names as people and models write them, English and French, to the day (0 = Sunday). */
export const WEEKDAY_NAMES: Readonly<Record<string, number>> = {
  sunday: 0,
  sun: 0,
  dimanche: 0,
  dim: 0,
  monday: 1,
  mon: 1,
  lundi: 1,
  lun: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  mardi: 2,
  mar: 2,
  wednesday: 3,
  wed: 3,
  mercredi: 3,
  mer: 3,
  thursday: 4,
  thu: 4,
  thur: 4,
  thurs: 4,
  jeudi: 4,
  jeu: 4,
  friday: 5,
  fri: 5,
  vendredi: 5,
  ven: 5,
  saturday: 6,
  sat: 6,
  samedi: 6,
  sam: 6,
};

/** A character in either case: "s" → "[sS]". */
const anyCase = (c: string) => `[${c}${c.toUpperCase()}]`;

/**
 * One regex alternative for a set of lowercase words, in any case, written as their prefix tree
 * ("sat", "saturday", "sam", "samedi" → "[sS][aA](?:[tT](?:[uU]…)?|[mM](?:[eE]…)?)"): the same
 * words as listing them one by one, in a fraction of the characters tools/list publishes.
 */
export function anyCaseWords(words: readonly string[]): string {
  const alternatives = (prefix: string): string | undefined => {
    const next = [
      ...new Set(
        words.filter((w) => w.length > prefix.length && w.startsWith(prefix)).map((w) => w[prefix.length] as string),
      ),
    ].sort();
    if (next.length === 0) return undefined;
    const branches = next.map((c) => anyCase(c) + (alternatives(prefix + c) ?? ''));
    const body = branches.length === 1 ? (branches[0] as string) : `(?:${branches.join('|')})`;
    // A word ending here makes the rest optional.
    if (prefix !== '' && words.includes(prefix)) return branches.length === 1 ? `(?:${body})?` : `${body}?`;
    return body;
  };
  return alternatives('') as string;
}

/**
 * Weekdays (of either day of a session): "saturday", "samedi", "sat", "sam", any case, several separated by
 * commas ("fri,sat"); in JSON also a list (["saturday"], ["fri", "sat"]). "" is absent. Gives the set of days
 * (0 = Sunday … 6 = Saturday).
 */
export function weekdaysField(name: string) {
  const one = anyCaseWords(Object.keys(WEEKDAY_NAMES));
  const message = `${name} must be weekday names separated by commas, in English or French (saturday, samedi, sat, sam)`;
  const text = z
    .string({ error: message })
    // Names, each followed by a comma and another name or by the end: the names written once.
    .regex(new RegExp(`^(?:\\s*${one}\\s*(?:,(?!\\s*$)|$))+$`), { error: message });
  // A list's items are written like the text (one name, or several separated by commas), so that
  // the schema tools/list publishes holds the names once, shared by both forms.
  const list = z.array(text, { error: message }).min(1, { error: message }).max(7, { error: message });
  return union([EMPTY, text, list], text, message, { examples: ['saturday', 'fri,sat'] })
    .transform((v) => {
      if (v === '') return undefined;
      const words = (typeof v === 'string' ? [v] : v).flatMap((w) => w.split(',')).map((w) => w.trim().toLowerCase());
      return [...new Set(words.map((w) => WEEKDAY_NAMES[w] as number))].sort();
    })
    .optional();
}
