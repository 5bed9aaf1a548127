import { addDays } from '../../core/clock.js';
import { DomainError, type FieldError } from '../../core/errors.js';
import { addMonths, frenchDay, fullYearsBetween } from './dates.js';
import type { EligibilityInput } from './schemas.js';
import type { SourceKey } from './sources.js';

/** One finding, in the two languages the doors speak: English for REST and MCP, French on the page. */
export interface Finding {
  code: string;
  /** applies: the rule decides part of the answer; uncertain: the texts leave it open; info: context. */
  status: 'applies' | 'uncertain' | 'info';
  en: string;
  fr: string;
  sources: SourceKey[];
}

export interface Verdict {
  givesPoints: 'yes' | 'no' | 'uncertain';
  maxPoints: number;
  ceiling: number | null;
  /** First day a course that counts may start (today, or later when the once-a-year limit blocks). */
  earliestStart: string | null;
  /** The 48N's four months: the last day the course may end. */
  deadline: string | null;
  nextCountableFrom: string | null;
  findings: Finding[];
}

const MAX_POINTS = 12;
const COURSE_POINTS = 4;

/**
 * Contradictory or impossible input, refused by field name before any rule runs: a rule applied
 * to facts that cannot all be true would answer with confidence about nobody.
 */
function refuse(input: EligibilityInput, today: string, probationCeiling: number | undefined): void {
  const errors: FieldError[] = [];
  for (const name of ['lastCourseEndedOn', 'letter48nReceivedOn', 'probationStartedOn'] as const) {
    const day = input[name];
    if (day && day > today) errors.push({ name, reason: `${name} (${day}) is after today (${today})` });
  }
  if (input.accompaniedDriving && !input.probationStartedOn)
    errors.push({ name: 'accompaniedDriving', reason: 'accompaniedDriving needs probationStartedOn' });
  if (input.letter48si && input.pointsLeft !== undefined && input.pointsLeft > 0)
    errors.push({
      name: 'pointsLeft',
      reason: `pointsLeft (${input.pointsLeft}) contradicts letter48si: the 48SI letter is sent when no point is left`,
    });
  if (input.letter48nReceivedOn && input.probationStartedOn && input.letter48nReceivedOn < input.probationStartedOn)
    errors.push({
      name: 'letter48nReceivedOn',
      reason: `letter48nReceivedOn (${input.letter48nReceivedOn}) is before probationStartedOn (${input.probationStartedOn})`,
    });
  if (probationCeiling !== undefined && input.pointsLeft !== undefined && input.pointsLeft > probationCeiling)
    errors.push({
      name: 'pointsLeft',
      reason: `pointsLeft (${input.pointsLeft}) is more than a probationary licence obtained on ${input.probationStartedOn} can hold today (${probationCeiling})`,
    });
  if (errors.length) throw new DomainError(400, 'invalid_parameters', errors.map((e) => e.reason).join('; '), errors);
}

interface Ceiling {
  value: number | null;
  /** While the probationary period runs: the most its ceiling can be today. */
  probation?: number;
  finding: Finding;
}

/**
 * The licence's ceiling. L223-1 al. 2 and R223-1 II-III: a probationary licence starts at 6 points
 * and grows at each anniversary by 2 (3 years: 6, 8, 10) or, after accompanied driving (apprentissage
 * anticipé, 2 years), by 3 (6, 9), only while no point has been lost since it was obtained; then 12
 * (R223-1 I, IV). Checked against service-public.fr F2390 (6 → 8 → 10 → 12; AAC 6 → 9 → 12).
 */
function ceilingOf(input: EligibilityInput, today: string): Ceiling {
  if (input.probationStartedOn) {
    const period = input.accompaniedDriving ? 2 : 3;
    const step = input.accompaniedDriving ? 3 : 2;
    const years = fullYearsBetween(input.probationStartedOn, today);
    if (years < period) {
      const value = 6 + step * years;
      const ladder = input.accompaniedDriving ? '6, 9, then 12' : '6, 8, 10, then 12';
      const echelle = input.accompaniedDriving ? '6, 9, puis 12' : '6, 8, 10, puis 12';
      return {
        value,
        probation: value,
        finding: {
          code: 'probation-ceiling',
          status: 'info',
          en: `Probationary licence: its ceiling grows at each anniversary (${ladder}) as long as no point has been lost since it was obtained; today it is at most ${value}. A point lost earlier stopped it where it was. The optional complementary training shortens the period.`,
          fr: `Permis probatoire : son plafond augmente à chaque anniversaire (${echelle}) tant qu’aucun point n’a été perdu depuis son obtention ; aujourd’hui, il est au plus de ${value} points. Un retrait de points l’a arrêté là où il était. La formation complémentaire facultative raccourcit la période.`,
          sources: ['L223_1', 'R223_1', 'F2390'],
        },
      };
    }
    return {
      value: MAX_POINTS,
      finding: {
        code: 'probation-ended',
        status: 'info',
        en: `The probationary period (${period} years) has ended: the ceiling is 12 points. If points were lost during it, 12 is reached only after two or three years without a new loss (L223-6).`,
        fr: `La période probatoire (${period} ans) est terminée : le plafond est de 12 points. Si des points ont été perdus pendant cette période, les 12 points ne sont atteints qu’après deux ou trois ans sans nouveau retrait (L223-6).`,
        sources: ['R223_1', 'L223_6'],
      },
    };
  }
  if (input.letter48nReceivedOn)
    return {
      value: null,
      finding: {
        code: 'probation-ceiling-unknown',
        status: 'info',
        en: 'A 48N letter means a probationary licence, whose ceiling is 6 to 12 points depending on its age: give probationStartedOn to know it.',
        fr: 'La lettre 48N concerne un permis probatoire, dont le plafond va de 6 à 12 points selon son ancienneté : indiquez sa date d’obtention pour le connaître.',
        sources: ['L223_1', 'R223_1'],
      },
    };
  return {
    value: MAX_POINTS,
    finding: {
      code: 'ceiling',
      status: 'info',
      en: 'A licence past its probationary period has a ceiling of 12 points.',
      fr: 'Un permis sorti de la période probatoire a un plafond de 12 points.',
      sources: ['R223_1'],
    },
  };
}

/**
 * What a course does for this person, with every rule's sources. Throws a DomainError (400, the
 * fields at fault) for impossible or contradictory input. `today` is a day in Europe/Paris.
 */
export function decide(input: EligibilityInput, today: string): Verdict {
  const ceiling = ceilingOf(input, today);
  refuse(input, today, ceiling.probation);
  const findings: Finding[] = [];

  // L223-1 al. 3: "Lorsque le nombre de points est nul, le permis perd sa validité"; R223-3: the
  // 48SI letter notifies it. No course can give back points to an invalid licence.
  if (input.letter48si)
    return {
      givesPoints: 'no',
      maxPoints: 0,
      ceiling: null,
      earliestStart: null,
      deadline: null,
      nextCountableFrom: null,
      findings: [
        {
          code: 'licence-invalidated',
          status: 'applies',
          en: 'After the 48SI letter the licence is invalid: no course gives points back. A new licence must be obtained.',
          fr: 'Après la lettre 48SI, le permis n’est plus valide : aucun stage ne rend de points. Il faut repasser le permis.',
          sources: ['L223_1', 'R223_3'],
        },
      ],
    };

  let givesPoints: Verdict['givesPoints'] = 'yes';
  const downgrade = (to: 'no' | 'uncertain') => {
    if (givesPoints === 'no') return;
    givesPoints = to;
  };
  findings.push(ceiling.finding);

  // R223-8 II: the attestation gives points for the course taken under L223-6; a course ordered in
  // a composition pénale (CPP 41-2) or as a complementary sentence (Code pénal 131-35-1) is not one.
  if (input.courtOrdered) {
    downgrade('no');
    findings.push({
      code: 'court-ordered',
      status: 'applies',
      en: 'A course ordered by a court or a prosecutor (composition pénale, complementary sentence) gives no points. A separate voluntary course may, under the rules below.',
      fr: 'Un stage imposé par la justice (composition pénale, peine complémentaire) ne rend aucun point. Un stage volontaire distinct le peut, selon les règles ci-dessous.',
      sources: ['R223_8', 'CPP_41_2', 'CP_131_35_1'],
    });
  }

  if (input.pointsLeft === 0) {
    downgrade('uncertain');
    findings.push({
      code: 'zero-points',
      status: 'uncertain',
      en: 'With 0 points the licence loses its validity (L223-1), which the 48SI letter notifies (R223-3). Whether a course taken before that letter arrives still counts is not settled by these texts: ask the prefecture before booking.',
      fr: 'À 0 point, le permis perd sa validité (L223-1), ce que notifie la lettre 48SI (R223-3). Ces textes ne disent pas clairement si un stage suivi avant l’arrivée de cette lettre compte encore : demandez à la préfecture avant de réserver.',
      sources: ['L223_1', 'R223_3'],
    });
  }

  // R223-4: the 48N letter gives four months from its receipt; not complying is a 4th-class fine
  // and exposes to a suspension of up to three years. R223-8 IV: in that case the fine is refunded.
  let deadline: string | null = null;
  if (input.letter48nReceivedOn) {
    deadline = addMonths(input.letter48nReceivedOn, 4);
    const received = frenchDay(input.letter48nReceivedOn);
    findings.push(
      {
        code: 'compulsory-48n',
        status: 'applies',
        en: `The 48N letter (received ${input.letter48nReceivedOn}) makes the course compulsory within four months of its receipt: finish it by ${deadline}.`,
        fr: `La lettre 48N (reçue le ${received}) rend le stage obligatoire dans les quatre mois de sa réception : il doit être terminé au plus tard le ${frenchDay(deadline)}.`,
        sources: ['R223_4', 'L223_6'],
      },
      {
        code: 'fine-refunded',
        status: 'applies',
        en: 'Taken within the four months, the course has the fine of the offence refunded (the centre sends the papers).',
        fr: 'Suivi dans les quatre mois, le stage donne droit au remboursement de l’amende de l’infraction (le centre transmet les pièces).',
        sources: ['R223_8'],
      },
      {
        code: 'deadline-missed-sanctions',
        status: 'applies',
        en: 'Not taking it within the four months is punished by a 4th-class fine and exposes to a licence suspension of up to three years.',
        fr: 'Ne pas le suivre dans les quatre mois est puni de l’amende des contraventions de 4e classe et expose à une suspension du permis de trois ans au plus.',
        sources: ['R223_4'],
      },
    );
    if (today > deadline) {
      downgrade('uncertain');
      findings.push({
        code: 'deadline-passed',
        status: 'uncertain',
        en: `The four months ended on ${deadline}. Whether a course now still counts as the compulsory one, refunds the fine or avoids the sanctions is not for these texts to say: ask the prefecture.`,
        fr: `Les quatre mois ont pris fin le ${frenchDay(deadline)}. Ces textes ne disent pas si un stage suivi maintenant vaut encore stage obligatoire, rembourse l’amende ou évite les sanctions : demandez à la préfecture.`,
        sources: ['R223_4'],
      });
    }
  }

  // L223-6 al. 4: a course "dans la limite d'une fois par an". Counted from the last course's second
  // day, plus a day, so that a course on the anniversary itself is never the one that falls a day
  // short. (R223-8 II also sets a wait between two reconstitutions; only an older wording of it, "deux
  // ans", could be read here, so the rule rests on L223-6 alone.)
  let nextCountableFrom: string | null = null;
  let earliestStart: string | null = today;
  if (input.lastCourseEndedOn) {
    nextCountableFrom = addDays(addMonths(input.lastCourseEndedOn, 12), 1);
    const blocked = today < nextCountableFrom;
    findings.push({
      code: 'once-a-year',
      status: 'applies',
      en: `Points come back at most once a year: after a course ending ${input.lastCourseEndedOn}, a course starting on or after ${nextCountableFrom} counts (one year and a day).`,
      fr: `Un stage ne rend des points qu’une fois par an : après un stage terminé le ${frenchDay(input.lastCourseEndedOn)}, un stage qui commence à partir du ${frenchDay(nextCountableFrom)} compte (un an et un jour).`,
      sources: ['L223_6'],
    });
    if (blocked && input.letter48nReceivedOn) {
      downgrade('uncertain');
      findings.push({
        code: 'once-a-year-vs-48n',
        status: 'uncertain',
        en: 'The 48N course is compulsory all the same (R223-4). Whether it gives points less than a year after the last course is left open: L223-6 limits courses to once a year, and R223-8 applies its wait between two reconstitutions to courses taken under the same provisions. Ask the prefecture.',
        fr: 'Le stage de la lettre 48N reste obligatoire (R223-4). S’il rend des points moins d’un an après le dernier stage, les textes ne le tranchent pas : L223-6 limite les stages à une fois par an, et R223-8 applique son délai entre deux reconstitutions aux stages suivis en application des mêmes dispositions. Demandez à la préfecture.',
        sources: ['L223_6', 'R223_8', 'R223_4'],
      });
    } else if (blocked) {
      downgrade('no');
      earliestStart = nextCountableFrom;
    }
  }

  // L223-6 al. 4 and R223-8 II: four points, within the licence's ceiling.
  const maxPoints =
    ceiling.value !== null && input.pointsLeft !== undefined
      ? Math.max(0, Math.min(COURSE_POINTS, ceiling.value - input.pointsLeft))
      : COURSE_POINTS;
  if (maxPoints === 0) {
    downgrade('no');
    findings.push({
      code: 'at-ceiling',
      status: 'applies',
      en: `With ${input.pointsLeft} points the licence is at its ceiling: a course gives nothing back.${input.letter48nReceivedOn ? ' The 48N course stays compulsory.' : ''}`,
      fr: `Avec ${input.pointsLeft} points, le permis est à son plafond : un stage ne rend rien.${input.letter48nReceivedOn ? ' Le stage de la lettre 48N reste obligatoire.' : ''}`,
      sources: ['R223_8'],
    });
  } else {
    findings.push({
      code: 'four-points',
      status: 'applies',
      en: `A course gives back up to 4 points within the licence's ceiling: here at most ${maxPoints}.`,
      fr: `Un stage rend jusqu’à 4 points dans la limite du plafond du permis : ici ${maxPoints} au plus.`,
      sources: ['L223_6', 'R223_8'],
    });
  }
  findings.push({
    code: 'credited-from',
    status: 'info',
    en: "The points count from the day after the course's second day.",
    fr: 'Les points comptent dès le lendemain du deuxième jour de stage.',
    sources: ['R223_8'],
  });

  // A course that cannot count has no first day to wait for.
  if (input.courtOrdered || maxPoints === 0) earliestStart = null;
  return {
    givesPoints,
    maxPoints: input.courtOrdered ? 0 : maxPoints,
    ceiling: ceiling.value,
    earliestStart,
    deadline,
    nextCountableFrom,
    findings,
  };
}
