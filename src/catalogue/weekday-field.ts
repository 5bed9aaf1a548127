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

/** A regex alternative matching `word` in any case: "sat" → "[sS][aA][tT]". */
function anyCase(word: string): string {
  return [...word].map((c) => `[${c}${c.toUpperCase()}]`).join('');
}

/**
 * Weekdays (of either day of a session): "saturday", "samedi", "sat", "sam", any case, several separated by
 * commas ("fri,sat"); in JSON also a list (["saturday"]). "" is absent. Gives the set of days
 * (0 = Sunday … 6 = Saturday).
 */
export function weekdaysField(name: string) {
  const names = Object.keys(WEEKDAY_NAMES).sort((a, b) => b.length - a.length);
  const one = `(?:${names.map(anyCase).join('|')})`;
  const message = `${name} must be weekday names separated by commas, in English or French (saturday, samedi, sat, sam)`;
  const text = z
    .string({ error: message })
    .regex(new RegExp(`^\\s*${one}\\s*(?:,\\s*${one}\\s*)*$`), { error: message });
  const list = z
    .array(z.string({ error: message }).regex(new RegExp(`^\\s*${one}\\s*$`), { error: message }), { error: message })
    .min(1, { error: message })
    .max(7, { error: message });
  return union([EMPTY, text, list], text, message, { examples: ['saturday', 'fri,sat'] })
    .transform((v) => {
      if (v === '') return undefined;
      const words = (typeof v === 'string' ? v.split(',') : v).map((w) => w.trim().toLowerCase());
      return [...new Set(words.map((w) => WEEKDAY_NAMES[w] as number))].sort();
    })
    .optional();
}
