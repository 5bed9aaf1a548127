import { describe, expect, it } from 'vitest';
import { addMonths, fullYearsBetween } from '../../src/agents/eligibility/dates.js';
import { decide, type Verdict } from '../../src/agents/eligibility/rules.js';
import { EligibilityInputSchema } from '../../src/agents/eligibility/schemas.js';
import { DomainError } from '../../src/core/errors.js';

/*
 * The rules against the texts they cite. Each case names the source it follows: Code de la route
 * L223-1 (probationary licence, invalidity at 0), R223-1 (6/8/10, 6/9 after accompanied driving,
 * then 12), L223-6 (4 points, once a year), R223-4 (48N: four months, 4th-class fine, suspension),
 * R223-8 (ceiling, one year between reconstitutions, day after the second day, fine refunded),
 * Code de procédure pénale 41-2 / Code pénal 131-35-1 (court-ordered courses).
 */

const TODAY = '2026-11-27';

function check(input: Record<string, unknown>, today = TODAY): Verdict {
  return decide(EligibilityInputSchema.parse(input), today);
}

function codes(v: Verdict): string[] {
  return v.findings.map((f) => f.code);
}

function sourcesOf(v: Verdict, code: string): string[] {
  return v.findings.find((f) => f.code === code)?.sources ?? [];
}

function refusal(input: Record<string, unknown>): { name: string; reason: string }[] {
  try {
    check(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).errors ?? [];
  }
  throw new Error('accepted');
}

describe('eligibility rules, case by case', () => {
  const table: {
    name: string;
    input: Record<string, unknown>;
    today?: string;
    expect: Partial<
      Pick<Verdict, 'givesPoints' | 'maxPoints' | 'ceiling' | 'deadline' | 'nextCountableFrom' | 'earliestStart'>
    >;
    has?: string[];
  }[] = [
    {
      name: 'nothing known: a course gives up to 4 points within 12 (L223-6, R223-8 II)',
      input: {},
      expect: { givesPoints: 'yes', maxPoints: 4, ceiling: 12, earliestStart: TODAY, deadline: null },
      has: ['four-points', 'credited-from'],
    },
    {
      name: '10 points of 12: 2 at most (R223-8 II)',
      input: { pointsLeft: 10 },
      expect: { givesPoints: 'yes', maxPoints: 2 },
    },
    {
      name: '12 points: nothing to recover',
      input: { pointsLeft: 12 },
      expect: { givesPoints: 'no', maxPoints: 0, earliestStart: null },
      has: ['at-ceiling'],
    },
    {
      name: 'probationary, first year: ceiling 6 (R223-1 II)',
      input: { probationStartedOn: '2026-03-01', pointsLeft: 3 },
      expect: { givesPoints: 'yes', ceiling: 6, maxPoints: 3 },
      has: ['probation-ceiling'],
    },
    {
      name: 'probationary, first anniversary today: ceiling 8',
      input: { probationStartedOn: '2025-11-27', pointsLeft: 5 },
      expect: { ceiling: 8, maxPoints: 3 },
    },
    {
      name: 'probationary, the day before the first anniversary: still 6',
      input: { probationStartedOn: '2025-11-28' },
      expect: { ceiling: 6 },
    },
    {
      name: 'probationary, third year: ceiling 10',
      input: { probationStartedOn: '2024-06-01' },
      expect: { ceiling: 10 },
    },
    {
      name: 'probationary after accompanied driving, second year: ceiling 9 (R223-1 II)',
      input: { probationStartedOn: '2025-06-01', accompaniedDriving: true, pointsLeft: 7 },
      expect: { ceiling: 9, maxPoints: 2 },
    },
    {
      name: 'probation over after 3 years: ceiling 12',
      input: { probationStartedOn: '2023-01-01' },
      expect: { ceiling: 12 },
      has: ['probation-ended'],
    },
    {
      name: 'accompanied driving: probation over after 2 years',
      input: { probationStartedOn: '2024-06-01', accompaniedDriving: true },
      expect: { ceiling: 12 },
      has: ['probation-ended'],
    },
    {
      name: '48N received 31 October: four months end on 28 February (R223-4)',
      input: { letter48nReceivedOn: '2026-10-31', probationStartedOn: '2025-02-01', pointsLeft: 4 },
      expect: { givesPoints: 'yes', deadline: '2027-02-28', ceiling: 8, maxPoints: 4 },
      has: ['compulsory-48n', 'fine-refunded', 'deadline-missed-sanctions'],
    },
    {
      name: '48N received 31 October before a leap year: 29 February',
      input: { letter48nReceivedOn: '2027-10-31' },
      today: '2027-11-02',
      expect: { deadline: '2028-02-29', ceiling: null, maxPoints: 4 },
      has: ['probation-ceiling-unknown'],
    },
    {
      name: '48N received 15 July: deadline 15 November, passed: uncertain',
      input: { letter48nReceivedOn: '2026-07-15' },
      expect: { givesPoints: 'uncertain', deadline: '2026-11-15' },
      has: ['deadline-passed'],
    },
    {
      name: 'last course in March: not now, from a year and a day after (L223-6, R223-8 II)',
      input: { lastCourseEndedOn: '2026-03-10' },
      expect: { givesPoints: 'no', maxPoints: 4, nextCountableFrom: '2027-03-11', earliestStart: '2027-03-11' },
      has: ['once-a-year'],
    },
    {
      name: 'a year and a day is today: yes',
      input: { lastCourseEndedOn: '2025-11-26' },
      expect: { givesPoints: 'yes', nextCountableFrom: TODAY, earliestStart: TODAY },
    },
    {
      name: 'a year to the day is not enough',
      input: { lastCourseEndedOn: '2025-11-27' },
      expect: { givesPoints: 'no', nextCountableFrom: '2026-11-28' },
    },
    {
      name: 'last course ended 29 February: next from 1 March the year after',
      input: { lastCourseEndedOn: '2024-02-29' },
      expect: { givesPoints: 'yes', nextCountableFrom: '2025-03-01' },
    },
    {
      name: '48N within a year of the last course: compulsory, points uncertain (L223-6 vs R223-8)',
      input: { letter48nReceivedOn: '2026-11-01', lastCourseEndedOn: '2026-05-20' },
      expect: { givesPoints: 'uncertain', deadline: '2027-03-01', nextCountableFrom: '2027-05-21' },
      has: ['once-a-year-vs-48n', 'compulsory-48n'],
    },
    {
      name: '48SI: the licence is invalid, no course helps (L223-1, R223-3)',
      input: { letter48si: true, lastCourseEndedOn: '2026-05-20' },
      expect: { givesPoints: 'no', maxPoints: 0, ceiling: null, earliestStart: null },
      has: ['licence-invalidated'],
    },
    {
      name: 'court-ordered course: no points (R223-8 II, CPP 41-2, Code pénal 131-35-1)',
      input: { courtOrdered: true, pointsLeft: 6 },
      expect: { givesPoints: 'no', maxPoints: 0, earliestStart: null },
      has: ['court-ordered'],
    },
    {
      name: '0 points without a 48SI letter: uncertain',
      input: { pointsLeft: 0 },
      expect: { givesPoints: 'uncertain', maxPoints: 4 },
      has: ['zero-points'],
    },
  ];

  for (const c of table) {
    it(c.name, () => {
      const v = check(c.input, c.today);
      expect(v).toMatchObject(c.expect);
      for (const code of c.has ?? []) expect(codes(v)).toContain(code);
      // Every finding cites at least one source, and an open case is marked so.
      for (const f of v.findings) expect(f.sources.length).toBeGreaterThan(0);
      if (v.givesPoints === 'uncertain') expect(v.findings.some((f) => f.status === 'uncertain')).toBe(true);
    });
  }

  it('cites the articles each rule rests on', () => {
    const n48 = check({ letter48nReceivedOn: '2026-11-01' });
    expect(sourcesOf(n48, 'compulsory-48n')).toContain('R223_4');
    expect(sourcesOf(n48, 'fine-refunded')).toEqual(['R223_8']);
    expect(sourcesOf(n48, 'deadline-missed-sanctions')).toEqual(['R223_4']);
    const both = check({ letter48nReceivedOn: '2026-11-01', lastCourseEndedOn: '2026-05-20' });
    expect(sourcesOf(both, 'once-a-year-vs-48n')).toEqual(expect.arrayContaining(['L223_6', 'R223_8']));
    expect(sourcesOf(check({ letter48si: true }), 'licence-invalidated')).toEqual(['L223_1', 'R223_3']);
    expect(sourcesOf(check({ courtOrdered: true }), 'court-ordered')).toContain('CPP_41_2');
    expect(sourcesOf(check({ probationStartedOn: '2026-01-01' }), 'probation-ceiling')).toContain('F2390');
  });
});

describe('eligibility input that cannot be true', () => {
  it('names each field at fault', () => {
    expect(refusal({ letter48nReceivedOn: '2026-11-28' })[0]?.name).toBe('letter48nReceivedOn');
    expect(refusal({ lastCourseEndedOn: '2027-01-01' })[0]?.name).toBe('lastCourseEndedOn');
    expect(refusal({ probationStartedOn: '2026-12-01' })[0]?.name).toBe('probationStartedOn');
    expect(refusal({ letter48si: true, pointsLeft: 3 })[0]).toMatchObject({ name: 'pointsLeft' });
    expect(refusal({ accompaniedDriving: true })[0]?.name).toBe('accompaniedDriving');
    expect(refusal({ probationStartedOn: '2026-03-01', pointsLeft: 8 })[0]?.reason).toMatch(/pointsLeft \(8\).*\(6\)/);
    expect(refusal({ probationStartedOn: '2026-03-01', letter48nReceivedOn: '2026-02-01' })[0]?.name).toBe(
      'letter48nReceivedOn',
    );
  });

  it('refuses points outside 0 to 12 and unknown fields by name', () => {
    const bad = EligibilityInputSchema.safeParse({ pointsLeft: 13, lettre48n: '2026-01-01' });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.') || i.message);
    expect(paths?.some((p) => p === 'pointsLeft')).toBe(true);
    expect(EligibilityInputSchema.safeParse({ pointsLeft: -1 }).success).toBe(false);
  });
});

describe('calendar arithmetic', () => {
  it('adds months date to date, clamped to the month’s end', () => {
    expect(addMonths('2026-10-31', 4)).toBe('2027-02-28');
    expect(addMonths('2027-10-31', 4)).toBe('2028-02-29');
    expect(addMonths('2026-01-15', 4)).toBe('2026-05-15');
    expect(addMonths('2026-09-30', 4)).toBe('2027-01-30');
    expect(fullYearsBetween('2024-02-29', '2025-02-27')).toBe(0);
    expect(fullYearsBetween('2024-02-29', '2025-02-28')).toBe(1);
  });
});
