import { z } from 'zod';
import {
  argumentsObject,
  choiceField,
  countField,
  dateField,
  departmentField,
  euroAmountField,
  flagField,
  locationNameField,
  optionalCountField,
  tokenField,
  weekdaysField,
} from './fields.js';

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
    distanceKm: z
      .number()
      .min(0)
      .optional()
      .describe(
        'Only in a search with `near`: distance in km from that place to the centre, as the crow flies, one decimal.',
      ),
  })
  .meta({ id: 'StageSession', description: 'A two-day points-recovery course session.' });

export const StageListSchema = z
  .object({
    object: z.literal('list').describe('Constant value "list".'),
    count: z.int().min(0).describe('Number of sessions returned.'),
    total: z.int().min(0).describe('Number of sessions matching the filters, on every page together.'),
    nextCursor: z
      .string()
      .optional()
      .describe('Absent on the last page. Pass it as `cursor` with the same filters to get the next page.'),
    description: z.string().describe('Human-readable sentence describing the list and the filters applied.'),
    platform: z.string().describe('Name of the platform publishing the data.'),
    updatedAt: z.iso.datetime({ offset: true }).describe("Time of the catalogue's last change."),
    data: z
      .array(StageSessionSchema)
      .describe('The sessions, ordered by day1, startTime, price, id (by default; see `sort`).'),
  })
  .meta({ id: 'StageList', description: 'A list of course sessions.' });

export type Centre = z.output<typeof CentreSchema>;
export type StageSession = z.output<typeof StageSessionSchema>;
export type StageList = z.output<typeof StageListSchema>;

// ---------------------------------------------------------------------------------------------
// Search query: the filters shared by GET /api/stages and the search_stages MCP tool.

export const LIMIT_DEFAULT = 20;
export const LIMIT_MAX = 100;
export const RADIUS_DEFAULT_KM = 30;
export const RADIUS_MAX_KM = 200;
export const SORTS = ['date', 'price', 'distance'] as const;

export const searchFields = {
  city: locationNameField('city', 100, ['lyon', 'saint etienne']).describe('City, partial name.'),
  dept: departmentField('dept').describe('Department code: "69", "2A", "974".'),
  region: locationNameField('region', 100, ['rhone', 'Île-de-France']).describe('Region, partial name.'),
  from: dateField('from').describe('Earliest first day; default today.'),
  to: dateField('to').describe('Latest first day (not before from).'),
  maxPrice: euroAmountField('maxPrice').describe('Maximum price, euros.'),
  limit: countField('limit', LIMIT_MAX, LIMIT_DEFAULT).describe('Page size.'),
  includeUnavailable: flagField('includeUnavailable').describe('Include full sessions.'),
  near: locationNameField('near', 100, ['Villeurbanne', '69003', 'Lyon 3e', '45.77,4.88']).describe(
    'Town ("Lyon 3e", "Saint-Denis 93"), postal code or "lat,lng"; within radiusKm. Ambiguous: 400 listing candidates.',
  ),
  radiusKm: optionalCountField('radiusKm', RADIUS_MAX_KM, [10, 50]).describe(
    `Km around near; default ${RADIUS_DEFAULT_KM}.`,
  ),
  sort: choiceField('sort', SORTS, { examples: ['price'] }).describe(
    '"date" (default), "price" or "distance" (needs near).',
  ),
  days: weekdaysField('days').describe('Weekdays, English or French: "sam", "fri,sat" or a list.'),
  cursor: tokenField('cursor', 400).describe('nextCursor of the previous page.'),
};

/** A rule JSON Schema cannot state (it compares two fields): said in `to`'s description. */
export function toNotBeforeFrom(q: { from?: unknown; to?: unknown }): boolean {
  return !(typeof q.from === 'string' && typeof q.to === 'string' && q.from && q.to && q.to < q.from);
}

function toBeforeFrom(q: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx) {
  if (!toNotBeforeFrom(q)) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `to (${q.to}) must not be before from (${q.from})` });
  }
}

/** Tool arguments of search_stages: the filters, and an unknown argument is refused by name. */
export const SearchQuerySchema = argumentsObject(searchFields).superRefine(toBeforeFrom);

/**
 * Query-string form of the same filters, field for field. Unknown parameters are ignored here,
 * as on any web API (cache-busters, the site's `page`).
 */
export const SearchQueryStringSchema = z.object(searchFields).superRefine(toBeforeFrom);

export type SearchQuery = z.output<typeof SearchQuerySchema>;
