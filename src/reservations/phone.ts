/**
 * French mobile numbers, metropolitan and overseas, as people type them: `06 12 34 56 78`,
 * `07.12.34.56.78`, `+33 6 12 34 56 78`, `0033612345678`, `0692 12 34 56` (Réunion),
 * `+262 692 12 34 56`, `+590 690…` (Guadeloupe, Saint-Martin, Saint-Barthélemy), `+594 694…`
 * (Guyane), `+596 696…` (Martinique), `+262 639…` (Mayotte). Kept in E.164 (`+33612345678`).
 *
 * Overseas mobiles also exist in the national plan (0690, 0692…): dialled from abroad they take
 * their territory's country code, not +33. Both are accepted and stored as dialled from abroad.
 */

// Overseas mobile prefixes (national form, after the 0) → their country code (ARCEP plan).
const OVERSEAS_MOBILE: readonly (readonly [string, string])[] = [
  ['690', '590'],
  ['691', '590'],
  ['694', '594'],
  ['696', '596'],
  ['697', '596'],
  ['692', '262'],
  ['693', '262'],
  ['639', '262'],
];

const SEPARATORS = /[\s.\-()/\u00a0]/g;

/** The number in E.164, or undefined when it is not a French mobile number. */
export function frenchMobile(input: string): string | undefined {
  let digits = input.replace(SEPARATORS, '');
  if (digits.startsWith('00')) digits = `+${digits.slice(2)}`;
  let national: string;
  if (/^0[67]\d{8}$/.test(digits)) national = digits.slice(1);
  else if (/^\+33[67]\d{8}$/.test(digits)) national = digits.slice(3);
  else if (/^\+(262|590|594|596)\d{9}$/.test(digits)) {
    const code = digits.slice(1, 4);
    const rest = digits.slice(4);
    const match = OVERSEAS_MOBILE.find(([prefix, c]) => rest.startsWith(prefix) && c === code);
    return match ? digits : undefined;
  } else return undefined;
  const overseas = OVERSEAS_MOBILE.find(([prefix]) => national.startsWith(prefix));
  return overseas ? `+${overseas[1]}${national}` : `+33${national}`;
}

/** E.164 as people read it: `+33 6 12 34 56 78`, `+262 692 12 34 56`. */
export function displayPhone(e164: string): string {
  if (e164.startsWith('+33')) return `+33 ${e164.slice(3, 4)} ${e164.slice(4).replace(/(\d{2})(?=\d)/g, '$1 ')}`;
  return `${e164.slice(0, 4)} ${e164.slice(4, 7)} ${e164.slice(7).replace(/(\d{2})(?=\d)/g, '$1 ')}`;
}
