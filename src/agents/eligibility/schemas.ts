import { z } from 'zod';
import { argumentsObject } from '../../catalogue/fields.js';
import { isDay } from '../../core/clock.js';

/*
 * What a person knows about their licence: one definition for the REST body, the MCP tool and the
 * page's form. Descriptions stay terse: tools/list carries them to every agent.
 */

const POINTS_MESSAGE = 'pointsLeft must be an integer from 0 to 12';

// Plain JSON types with short patterns (not the catalogue's text-or-typed unions): the tool's
// schema is read by every agent in tools/list, so it stays small.
function day(name: string) {
  const message = `${name} must be a real date, YYYY-MM-DD`;
  // The format check is a refinement, not a pattern: tools/list stays short, the description says YYYY-MM-DD.
  return z.string({ error: message }).refine(isDay, { error: message }).optional();
}

function flag(name: string) {
  return z.boolean({ error: `${name} must be true or false` }).optional();
}

export const EligibilityInputSchema = argumentsObject({
  lastCourseEndedOn: day('lastCourseEndedOn').describe('YYYY-MM-DD: 2nd day of the last course that gave points.'),
  letter48nReceivedOn: day('letter48nReceivedOn').describe('YYYY-MM-DD: 48N letter received.'),
  probationStartedOn: day('probationStartedOn').describe('YYYY-MM-DD: probationary licence obtained.'),
  accompaniedDriving: flag('accompaniedDriving').describe('Licence after accompanied driving.'),
  courtOrdered: flag('courtOrdered').describe('Course ordered by a court.'),
  pointsLeft: z
    .int({ error: POINTS_MESSAGE })
    .min(0, { error: POINTS_MESSAGE })
    .max(12, { error: POINTS_MESSAGE })
    .optional()
    .describe('Points left now.'),
  letter48si: flag('letter48si').describe('48SI letter (invalidated) received.'),
  near: z
    .string({ error: 'near must be a town or a postal code' })
    .max(100, { error: 'near must be at most 100 characters' })
    .optional()
    .describe('Town or postal code.'),
});

export type EligibilityInput = z.output<typeof EligibilityInputSchema>;

// YYYY-MM-DD days; plain strings in the output schema, which every tools/list carries.
const Day = z.string();

export const EligibilitySourceSchema = z.object({ title: z.string(), url: z.string() });

export const EligibilityRuleSchema = z.object({
  code: z.string(),
  status: z.enum(['applies', 'uncertain', 'info']),
  text: z.string(),
  sources: z.array(EligibilitySourceSchema),
});

export const EligibleSessionSchema = z.object({
  id: z.string(),
  day1: Day,
  day2: Day,
  city: z.string(),
  priceEuros: z.number(),
  spotsAvailable: z.int(),
  pointsFrom: Day,
  bookingUrl: z.string(),
});

export const EligibilityAnswerSchema = z.object({
  givesPoints: z.enum(['yes', 'no', 'uncertain']),
  maxPoints: z.int().min(0).max(4),
  ceiling: z.int().min(0).max(12).nullable(),
  earliestStart: Day.nullable(),
  deadline: Day.nullable(),
  nextCountableFrom: Day.nullable(),
  summary: z.string(),
  rules: z.array(EligibilityRuleSchema),
  near: z.string().optional(),
  sessions: z.array(EligibleSessionSchema).optional(),
});

export type EligibilityAnswer = z.infer<typeof EligibilityAnswerSchema>;
export type EligibilityRule = z.infer<typeof EligibilityRuleSchema>;
export type EligibleSession = z.infer<typeof EligibleSessionSchema>;
