import { z } from 'zod';
import { publicHolidays } from '../catalogue/demo/holidays.js';
import { canonicalDeptCode } from '../catalogue/geography.js';
import { isPostalCodeOf } from '../catalogue/postal-codes.js';
import { addDays, isDayBetween } from '../core/clock.js';

/*
 * What operators and partners write, checked against what the read side promises: every field
 * named in its message, cross-field rules (a postal code of the department, coordinates in it,
 * day2 the day after day1) reported on the field at fault. The same schemas validate the API, the
 * import (API and command line) and describe both in /openapi.json.
 */

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Printable text on one line: no control characters (they have no place in a name or an address).
/** One line of printable text: no control characters, no invisible formatting (bidi overrides…). */
export const ONE_LINE = /^[^\p{Cc}\p{Cf}]*$/u;

/** Where each department's coordinates may lie: metropolitan France (Corsica included) or its own island. */
const OVERSEAS_BOUNDS: Record<string, [minLat: number, maxLat: number, minLng: number, maxLng: number]> = {
  '971': [15.8, 16.6, -61.9, -60.9], // Guadeloupe
  '972': [14.35, 14.9, -61.3, -60.75], // Martinique
  '973': [2.1, 5.8, -54.65, -51.55], // Guyane
  '974': [-21.42, -20.85, 55.2, 55.85], // La Réunion
  '976': [-13.05, -12.6, 44.95, 45.35], // Mayotte
};
const METROPOLITAN_BOUNDS: [number, number, number, number] = [41.3, 51.15, -5.2, 9.6];

const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a text` })
    .trim()
    .min(1, { error: `${name} must not be empty` })
    .max(max, { error: `${name} must be at most ${max} characters` })
    .regex(ONE_LINE, { error: `${name} must be one line of printable text` });

/** Printable text over several lines: line breaks and tabs, no other control or invisible formatting characters. */
export const MULTI_LINE = /^(?:[\n\t]|[^\p{Cc}\p{Cf}])*$/u;

/** The most characters a centre's cancellation terms may have (the column's check says the same). */
export const CANCELLATION_TERMS_MAX = 2000;

const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? null : v), schema.nullable().optional());

export const uuidField = (name: string) =>
  z
    .string({ error: `${name} must be a UUID` })
    .trim()
    .toLowerCase()
    .pipe(z.uuid({ error: `${name} must be a UUID, e.g. 3f2c1a9e-5b7d-4c2e-9f10-2a3b4c5d6e7f` }));

/** The years a course, a declaration or an approval can be dated in (the calendar's holidays are computed for them). */
export const FIRST_YEAR = 2000;
export const LAST_YEAR = 2199;

const dateField = (name: string) =>
  z.iso
    .date({ error: `${name} must be a date in YYYY-MM-DD form` })
    .refine((d) => isDayBetween(d, FIRST_YEAR, LAST_YEAR), {
      error: `${name} must be a date from ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31`,
    })
    .describe(`${name} (YYYY-MM-DD)`);

const timeField = (name: string) =>
  z
    .string({ error: `${name} must be a time HH:MM` })
    .regex(HH_MM, { error: `${name} must be a time HH:MM, 00:00 to 23:59` });

const money = (name: string) =>
  z
    .number({ error: `${name} must be a number of euros` })
    .gte(0.01, { error: `${name} must be at least 0.01 (one cent)` })
    .max(5000, { error: `${name} must be at most 5000` })
    .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, { error: `${name} must have at most 2 decimals` });

export const CentreInputSchema = z
  .object({
    slug: z
      .string({ error: 'slug must be a text' })
      .max(120, { error: 'slug must be at most 120 characters' })
      .regex(SLUG, { error: 'slug must be lowercase letters, digits and single hyphens, e.g. cap-conduite-lyon' })
      .describe('URL-friendly name, unique: the centre page is /centres/{slug}.'),
    name: text('name', 200).describe('Centre name, as advertised.'),
    address: text('address', 300).describe('Street address.'),
    city: text('city', 100).describe('City.'),
    postalCode: z
      .string({ error: 'postalCode must be a text of 5 digits' })
      .regex(/^\d{5}$/, { error: 'postalCode must be 5 digits' })
      .describe('Postal code: one that serves a commune of the department.'),
    deptCode: z
      .string({ error: 'deptCode must be a department code' })
      .transform((v, ctx) => {
        const code = canonicalDeptCode(v);
        if (code) return code;
        ctx.addIssue({ code: 'custom', message: 'deptCode must be one of the 101 department codes, e.g. 69, 2A, 974' });
        return z.NEVER;
      })
      .describe('Department code: 01–95, 2A, 2B, 971–974, 976.'),
    lat: z
      .number({ error: 'lat must be a number' })
      .min(-90, { error: 'lat must be from -90 to 90' })
      .max(90, { error: 'lat must be from -90 to 90' })
      .describe('Latitude (WGS 84), in the department.'),
    lng: z
      .number({ error: 'lng must be a number' })
      .min(-180, { error: 'lng must be from -180 to 180' })
      .max(180, { error: 'lng must be from -180 to 180' })
      .describe('Longitude (WGS 84), in the department.'),
    agrementNumber: z
      .string({ error: 'agrementNumber must be a text' })
      .trim()
      .toUpperCase()
      .regex(/^R\d{2}(\d{3}|02[AB])\d{5}$/, {
        error: 'agrementNumber must be R + 2-digit year + 3-character department + 5 digits, e.g. R2305900010',
      })
      .describe('Prefectural approval number: R, year, department on 3 characters, 5 digits (R2305900010). Unique.'),
    email: optionalText(
      z.email({ error: 'email must be an email address' }).max(254, { error: 'email must be at most 254 characters' }),
    ).describe('Where the centre receives booking notices. Never published.'),
    phone: optionalText(
      z
        .string({ error: 'phone must be a text' })
        .regex(/^\+?[0-9 .()-]{8,20}$/, { error: 'phone must be a telephone number, e.g. 04 72 00 00 00' }),
    ).describe('Telephone number for the people who book.'),
    approvedOn: dateField('approvedOn')
      .nullable()
      .optional()
      .describe(
        'The day the prefect approved the centre (YYYY-MM-DD). The approval holds 5 years: from that day 5 years on, the centre and its sessions leave every public answer until a new date is written. Omitted: the stored date is kept; null: none is recorded.',
      ),
    cancellationTerms: z
      .preprocess(
        // Line endings as one (\n), spaces at either end off; empty means none.
        (v) => (typeof v === 'string' ? v.replace(/\r\n?/g, '\n').trim() || null : v),
        z
          .string({ error: 'cancellationTerms must be a text' })
          .max(CANCELLATION_TERMS_MAX, {
            error: `cancellationTerms must be at most ${CANCELLATION_TERMS_MAX} characters`,
          })
          .regex(MULTI_LINE, { error: 'cancellationTerms must be printable text (line breaks allowed)' })
          .nullable()
          .optional(),
      )
      .describe(
        `The centre's cancellation and refund terms, plain text, line breaks kept, at most ${CANCELLATION_TERMS_MAX} characters: shown to people before they book, on their reservation and in its confirmation email; never in the public centre object. Omitted: the stored terms are kept; null or empty: none (people are shown the service's default sentence).`,
      ),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (typeof c.deptCode !== 'string') return;
    if (!isPostalCodeOf(c.deptCode, c.postalCode)) {
      ctx.addIssue({
        code: 'custom',
        path: ['postalCode'],
        message: `postalCode ${c.postalCode} serves no commune of department ${c.deptCode}`,
      });
    }
    const [minLat, maxLat, minLng, maxLng] = OVERSEAS_BOUNDS[c.deptCode] ?? METROPOLITAN_BOUNDS;
    if (c.lat < minLat || c.lat > maxLat)
      ctx.addIssue({
        code: 'custom',
        path: ['lat'],
        message: `lat must lie in department ${c.deptCode} (${minLat} to ${maxLat})`,
      });
    if (c.lng < minLng || c.lng > maxLng)
      ctx.addIssue({
        code: 'custom',
        path: ['lng'],
        message: `lng must lie in department ${c.deptCode} (${minLng} to ${maxLng})`,
      });
    if (c.agrementNumber.slice(3, 6) !== c.deptCode.padStart(3, '0')) {
      ctx.addIssue({
        code: 'custom',
        path: ['agrementNumber'],
        message: `agrementNumber must carry the department on 3 characters (${c.deptCode.padStart(3, '0')}) after the year`,
      });
    }
  })
  .describe('A centre as an operator writes it.');

export type CentreInput = z.output<typeof CentreInputSchema>;

export const CentrePatchSchema = z
  .object({
    suspended: z
      .boolean({ error: 'suspended must be true or false' })
      .describe(
        'true suspends the centre: within a second its sessions leave every public answer (lookups by id answer 404, the change stream says they were removed); its bookings are kept. false restores it.',
      ),
    suspensionReason: z
      .string({ error: 'suspensionReason must be a text' })
      .trim()
      .min(3, { error: 'suspensionReason must be 3 to 500 characters' })
      .max(500, { error: 'suspensionReason must be 3 to 500 characters' })
      .optional()
      .describe('Why (3 to 500 characters): required to suspend, never published.'),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.suspended && p.suspensionReason === undefined)
      ctx.addIssue({ code: 'custom', path: ['suspensionReason'], message: 'suspensionReason is required to suspend' });
  })
  .describe("A change of the centre's suspension (operator key).");

export type CentrePatch = z.output<typeof CentrePatchSchema>;

export const SESSION_STATUS = z.enum(['scheduled', 'cancelled'], {
  error: 'status must be "scheduled" or "cancelled"',
});

const sessionFields = {
  centreId: uuidField('centreId').describe('The hosting centre.'),
  courseNumber: z
    .string({ error: 'courseNumber must be a text' })
    .trim()
    .min(1, { error: 'courseNumber must not be empty' })
    .max(40, { error: 'courseNumber must be at most 40 characters' })
    .regex(/^[A-Za-z0-9][A-Za-z0-9/._-]*$/, { error: 'courseNumber must be letters, digits and / . _ -' })
    .describe('Course identification number (adverts must show it by law). Unique.'),
  day1: dateField('day1'),
  day2: dateField('day2').optional().describe('The day after day1; may be omitted.'),
  startTime: timeField('startTime').describe('Start time each day, HH:MM, local time of the centre.'),
  endTime: timeField('endTime').describe('End time each day, HH:MM, after startTime.'),
  priceEuros: money('priceEuros').describe('Effective price in euros (at most 2 decimals).'),
  capacity: z
    .int({ error: 'capacity must be a whole number' })
    .min(6, { error: 'capacity must be from 6 to 20 (a course group holds 6 to 20 people)' })
    .max(20, { error: 'capacity must be from 6 to 20 (a course group holds 6 to 20 people)' })
    .describe('Places in the group: 6 to 20.'),
  spotsAvailable: z
    .int({ error: 'spotsAvailable must be a whole number' })
    .min(0, { error: 'spotsAvailable must be 0 or more' })
    .describe(
      'Places left as your own system counts them, 0 to capacity. Bookings made here that it does not count (see heldHere) are subtracted from it: a figure sent late never puts a booked place back on sale.',
    ),
  heldHere: z
    .int({ error: 'heldHere must be a whole number' })
    .min(0, { error: 'heldHere must be 0 or more' })
    .max(20, { error: 'heldHere must be at most 20' })
    .optional()
    .describe(
      'How many bookings made here your spotsAvailable already counts: the heldHere you read with it (GET, export), or what your system recorded from our notices. Absent: 0, and every booking made here is subtracted.',
    ),
  status: SESSION_STATUS.default('scheduled').describe('"cancelled" takes it out of search at once.'),
  declaredOn: z
    .preprocess((v) => (v === '' ? null : v), dateField('declaredOn').nullable().optional())
    .describe(
      'The day the course was declared to the prefecture (YYYY-MM-DD), never after day1 nor in the future. Required, at least 10 calendar days before day1, for a session created or moved (or whose declaredOn changes) less than 10 days before it starts. Never published.',
    ),
};

/** day2, times and places against each other, and the days against the calendar. */
function checkSession(
  s: {
    day1?: string;
    day2?: string | undefined;
    startTime?: string;
    endTime?: string;
    capacity?: number;
    spotsAvailable?: number;
    heldHere?: number | undefined;
    declaredOn?: string | null | undefined;
  },
  ctx: z.RefinementCtx,
) {
  // The object's checks run even when a field failed its own: a day1 that is not a date has
  // already been reported, and must not reach the date arithmetic below.
  const day1 = s.day1 !== undefined && isDayBetween(s.day1, FIRST_YEAR, LAST_YEAR) ? s.day1 : undefined;
  if (day1 && s.day2 !== undefined && s.day2 !== addDays(day1, 1))
    ctx.addIssue({
      code: 'custom',
      path: ['day2'],
      message: `day2 must be the day after day1 (${addDays(day1, 1)})`,
    });
  if (day1) {
    for (const [name, day] of [
      ['day1', day1],
      ['day2', addDays(day1, 1)],
    ] as const) {
      const date = new Date(`${day}T12:00:00Z`);
      if (date.getUTCDay() === 0)
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} (${day}) is a Sunday: courses are never held on Sundays`,
        });
      else if (publicHolidays(date.getUTCFullYear()).has(day))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} (${day}) is a public holiday: courses are never held on them`,
        });
    }
  }
  if (day1 && s.declaredOn && s.declaredOn > day1)
    ctx.addIssue({
      code: 'custom',
      path: ['declaredOn'],
      message: `declaredOn must be on or before day1 (${day1}): a course is declared to the prefecture before it starts`,
    });
  if (s.startTime && s.endTime && s.endTime <= s.startTime)
    ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'endTime must be after startTime' });
  if (s.capacity !== undefined && s.spotsAvailable !== undefined && s.spotsAvailable > s.capacity)
    ctx.addIssue({
      code: 'custom',
      path: ['spotsAvailable'],
      message: `spotsAvailable must be at most capacity (${s.capacity})`,
    });
  else if (
    s.capacity !== undefined &&
    s.spotsAvailable !== undefined &&
    s.heldHere !== undefined &&
    s.spotsAvailable + s.heldHere > s.capacity
  )
    ctx.addIssue({
      code: 'custom',
      path: ['heldHere'],
      message: `spotsAvailable plus heldHere must be at most capacity (${s.capacity}): the bookings your figure counts are places of the group too`,
    });
}

export const SessionInputSchema = z
  .object(sessionFields)
  .strict()
  .superRefine(checkSession)
  .describe('A session as an operator or its centre writes it.');

export type SessionInput = z.output<typeof SessionInputSchema>;

export const SessionPatchSchema = z
  .object({
    priceEuros: sessionFields.priceEuros.optional(),
    spotsAvailable: sessionFields.spotsAvailable.optional(),
    heldHere: sessionFields.heldHere,
    capacity: sessionFields.capacity.optional(),
    startTime: sessionFields.startTime.optional(),
    endTime: sessionFields.endTime.optional(),
    status: SESSION_STATUS.optional().describe('"cancelled" takes it out of search at once; "scheduled" restores it.'),
    declaredOn: sessionFields.declaredOn.describe(
      'The day the course was declared to the prefecture (YYYY-MM-DD); null removes it. The 10-day rule applies as for a PUT.',
    ),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { error: 'the body must change at least one field' })
  .refine((p) => p.heldHere === undefined || p.spotsAvailable !== undefined, {
    error: 'heldHere says what your spotsAvailable counts: send it with spotsAvailable',
    path: ['heldHere'],
  })
  .describe('The fields to change; the others keep their value.');

export type SessionPatch = z.output<typeof SessionPatchSchema>;

export const PlacesChangeSchema = z
  .object({
    change: z
      .int({ error: 'change must be a whole number' })
      .min(-40, { error: 'change must be from -40 to 40' })
      .max(40, { error: 'change must be from -40 to 40' })
      .refine((v) => v !== 0, { error: 'change must not be 0' })
      .describe('Places to add (positive) or take (negative), e.g. -1 for a seat sold elsewhere.'),
  })
  .strict()
  .describe('A relative change of the places left.');

export const SESSION_STATUSES = SESSION_STATUS.options;
