import { z } from 'zod';
import { argumentsObject, dateField, flagField, optionalTextField } from '../../catalogue/fields.js';

/*
 * What a person knows about their licence: one definition for the REST body, the MCP tool and the
 * page's form. Descriptions stay terse: tools/list carries them to every agent.
 */

const POINTS_MESSAGE = 'pointsLeft must be an integer from 0 to 12';

export const EligibilityInputSchema = argumentsObject({
  lastCourseEndedOn: dateField('lastCourseEndedOn').describe('Second day of the last course that gave points.'),
  letter48nReceivedOn: dateField('letter48nReceivedOn').describe('Day the 48N letter was received.'),
  probationStartedOn: dateField('probationStartedOn').describe('Probationary licence: day it was obtained.'),
  accompaniedDriving: flagField('accompaniedDriving').describe('Licence after accompanied driving (AAC).'),
  courtOrdered: flagField('courtOrdered').describe('Course ordered by a court or prosecutor.'),
  pointsLeft: z
    .int({ error: POINTS_MESSAGE })
    .min(0, { error: POINTS_MESSAGE })
    .max(12, { error: POINTS_MESSAGE })
    .optional()
    .describe('Points left now.'),
  letter48si: flagField('letter48si').describe('48SI letter (licence invalidated) received.'),
  near: optionalTextField('near', 100, 'a town or postal code').describe(
    'Town or postal code: lists sessions that fit.',
  ),
});

export type EligibilityInput = z.output<typeof EligibilityInputSchema>;

const Day = z.iso.date();

export const EligibilitySourceSchema = z.object({ title: z.string(), url: z.url() });

export const EligibilityRuleSchema = z.object({
  code: z.string(),
  status: z.enum(['applies', 'uncertain', 'info']),
  text: z.string(),
  sources: z.array(EligibilitySourceSchema),
});

export const EligibleSessionSchema = z.object({
  id: z.uuid(),
  day1: Day,
  day2: Day,
  city: z.string(),
  priceEuros: z.number(),
  spotsAvailable: z.int(),
  pointsFrom: Day,
  bookingUrl: z.url(),
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
