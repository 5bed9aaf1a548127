import { z } from 'zod';
import { countField, flagField, textField } from './fields.js';
import { canonicalDeptCode } from './geography.js';
import { searchKey } from './text.js';

/*
 * One definition per shape. REST validation, the OpenAPI document and the MCP tool schemas
 * all derive from these.
 */

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

export const CentreSchema = z
  .object({
    id: z.uuid().describe('Centre identifier.'),
    name: z.string().describe('Centre name.'),
    slug: z.string().describe('URL-friendly name.'),
    address: z.string().describe('Street address.'),
    city: z.string().describe('City.'),
    postalCode: z.string().describe('Postal code.'),
    deptCode: z.string().describe('Department code, e.g. "69", "2A", "974".'),
    deptName: z.string().describe('Department name.'),
    region: z.string().describe('Region.'),
    lat: z.number().describe('Latitude (WGS 84).'),
    lng: z.number().describe('Longitude (WGS 84).'),
    agrementNumber: z.string().describe('Prefectural approval number, e.g. R2305900010.'),
    url: z.url().describe('Centre page address.'),
  })
  .meta({ id: 'Centre', description: 'A prefecture-approved centre hosting courses.' });

export const StageSessionSchema = z
  .object({
    id: z.uuid().describe('Session identifier.'),
    day1: z.iso.date().describe('First day (YYYY-MM-DD). The course lasts two consecutive days.'),
    day2: z.iso.date().describe('Second day (YYYY-MM-DD), the day after day1.'),
    startTime: z.string().regex(HH_MM).describe('Start time each day, HH:MM, local time of the centre.'),
    endTime: z.string().regex(HH_MM).describe('End time each day, HH:MM, local time of the centre.'),
    priceEuros: z.number().describe('Effective price in euros.'),
    spotsAvailable: z.int().min(0).describe('Remaining places; 0 means full.'),
    bookingUrl: z.url().describe('Page where the human user finalises the booking.'),
    centre: CentreSchema,
  })
  .meta({ id: 'StageSession', description: 'A two-day points-recovery course session.' });

export const StageListSchema = z
  .object({
    object: z.literal('list').describe('Constant value "list".'),
    count: z.int().min(0).describe('Number of sessions returned.'),
    description: z.string().describe('Human-readable sentence describing the list and the filters applied.'),
    platform: z.string().describe('Name of the platform publishing the data.'),
    updatedAt: z.iso.datetime({ offset: true }).describe("Time of the catalogue's last change."),
    data: z.array(StageSessionSchema).describe('The sessions, ordered by day1, startTime, price, id.'),
  })
  .meta({ id: 'StageList', description: 'A list of course sessions.' });

export type Centre = z.output<typeof CentreSchema>;
export type StageSession = z.output<typeof StageSessionSchema>;
export type StageList = z.output<typeof StageListSchema>;

// ---------------------------------------------------------------------------------------------
// Search query: the filters shared by GET /api/stages and the search_stages MCP tool.

export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const calendarDate = (what: string) =>
  z
    .string({ error: `${what} must be a date in YYYY-MM-DD form` })
    .refine(isCalendarDate, { error: `${what} must be a real calendar date in YYYY-MM-DD form` });

/**
 * A place name matched ignoring case, accents and punctuation. One that folds to nothing ("!!!",
 * "---", a zero-width space) would match every session: refused, naming the parameter, since the
 * caller surely meant something else.
 */
const placeName = (name: string) =>
  textField(name, 100).refine((v) => searchKey(v) !== '', {
    error: `${name} must contain at least one letter or digit`,
  });

export const searchFields = {
  city: placeName('city')
    .optional()
    .describe('City, partial match ignoring case and accents ("saint etienne" finds "Saint-Étienne").'),
  dept: z
    .string({ error: 'dept must be a department code' })
    .transform((v, ctx) => {
      const code = canonicalDeptCode(v);
      if (!code) {
        ctx.addIssue({ code: 'custom', message: `unknown department code "${v}"` });
        return z.NEVER;
      }
      return code;
    })
    .optional()
    .describe('Department code: "69", "01" (or "1"), "2A", "974".'),
  region: placeName('region')
    .optional()
    .describe('Region, partial match ignoring case and accents ("rhone" finds "Auvergne-Rhône-Alpes").'),
  from: calendarDate('from')
    .optional()
    .describe('Earliest first day, YYYY-MM-DD. Default: today (Europe/Paris). Earlier dates count as today.'),
  to: calendarDate('to').optional().describe('Latest first day, YYYY-MM-DD, inclusive.'),
  maxPrice: z
    .number({ error: 'maxPrice must be a number of euros' })
    .min(0, { error: 'maxPrice must not be negative' })
    .max(100_000, { error: 'maxPrice must be at most 100000' })
    .optional()
    .describe('Maximum price in euros, inclusive.'),
  limit: countField('limit', LIMIT_MAX, LIMIT_DEFAULT).describe(`Maximum number of sessions, 1 to ${LIMIT_MAX}.`),
  includeUnavailable: flagField('includeUnavailable').describe(
    'When true, full sessions (0 places left) are included as well.',
  ),
};

function toBeforeFrom(q: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx) {
  if (q.from && q.to && q.to < q.from) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to (${q.to}) must not be before from (${q.from})` });
  }
}

/** Typed arguments, as an MCP client sends them. */
export const SearchQuerySchema = z.object(searchFields).superRefine(toBeforeFrom);

/**
 * Query-string form of the same filters: each value arrives as text and is read into the
 * typed field above, so the rules and messages stay the same.
 */
function fromQueryString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (value === '') return undefined;
  return value;
}
function numberFromQueryString(value: unknown): unknown {
  const v = fromQueryString(value);
  if (typeof v !== 'string') return v;
  const n = Number(v.trim());
  return v.trim() === '' || Number.isNaN(n) ? v : n;
}
function booleanFromQueryString(value: unknown): unknown {
  const v = fromQueryString(value);
  if (typeof v !== 'string') return v;
  const lower = v.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return v;
}

export const SearchQueryStringSchema = z
  .object({
    city: z.preprocess(fromQueryString, searchFields.city),
    dept: z.preprocess(fromQueryString, searchFields.dept),
    region: z.preprocess(fromQueryString, searchFields.region),
    from: z.preprocess(fromQueryString, searchFields.from),
    to: z.preprocess(fromQueryString, searchFields.to),
    maxPrice: z.preprocess(numberFromQueryString, searchFields.maxPrice),
    limit: z.preprocess(numberFromQueryString, searchFields.limit),
    includeUnavailable: z.preprocess(booleanFromQueryString, searchFields.includeUnavailable),
  })
  .superRefine(toBeforeFrom);

export type SearchQuery = z.output<typeof SearchQuerySchema>;
