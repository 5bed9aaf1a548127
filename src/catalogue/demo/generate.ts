import { addDays } from '../../core/clock.js';
import { DEPARTMENTS } from '../geography.js';
import type { CentreRecord, SessionRecord } from '../read-model.js';
import type { CatalogueData } from '../repository.js';
import { slugify } from '../text.js';
import { publicHolidays } from './holidays.js';
import { Random } from './random.js';
import { loadTowns, type Town } from './towns.js';

export interface DemoOptions {
  /** First day of the catalogue's year (YYYY-MM-DD); sessions start from the day after. */
  today: string;
  seed?: string;
  centres?: number;
  sessions?: number;
  /**
   * Centres and sessions multiplied by this, each centre with about as many sessions as in the demo:
   * `--scale 10` makes about 14,000 centres and 200,000 sessions for load tests. 1 gives the demo
   * itself, unchanged.
   */
  scale?: number;
}

export const DEMO_SEED = 'stages-demo-v1';

// Invented brand names; any resemblance to a real organisation is unintended.
const BRANDS = [
  'Cap Conduite',
  'Route Sereine',
  'Horizon Points',
  'Volant Citoyen',
  'Escale Conduite',
  'Trajectoire Permis',
  'Allure Formation Routière',
  'Vigie Route',
  'Boussole Conduite',
  'Relais Permis',
  'Atelier de la Route',
  'Ligne Claire Formation',
  'Éveil Routier',
  'Cap Points',
  'Sillage Formation',
  'Rond-Point Formation',
  'Clé de Contact',
  'Allée des Conducteurs',
];
const VENUES = ['', '', '', 'Centre', 'Espace', 'Salle'];
const STREETS = [
  'rue de la République',
  'avenue Jean Jaurès',
  'boulevard Victor Hugo',
  'rue Pasteur',
  'rue du Général de Gaulle',
  'avenue de la Gare',
  'rue des Tilleuls',
  'place du Marché',
  'rue Jules Ferry',
  'allée des Peupliers',
  'rue de la Liberté',
  'avenue des Platanes',
  'rue du Moulin',
  'chemin des Vignes',
  'rue Émile Zola',
  "rue de l'Industrie",
];
const SCHEDULES: ReadonlyArray<{ start: string; end: string; weight: number }> = [
  { start: '08:30', end: '16:30', weight: 75 },
  { start: '09:00', end: '17:00', weight: 15 },
  { start: '08:00', end: '16:00', weight: 10 },
];
const CAPACITIES: ReadonlyArray<{ value: number; weight: number }> = [
  { value: 20, weight: 55 },
  { value: 18, weight: 15 },
  { value: 16, weight: 15 },
  { value: 15, weight: 5 },
  { value: 12, weight: 10 },
];

const ILE_DE_FRANCE = '11';

/** Department part of an approval number: three characters ("059", "02A", "974"). */
function approvalDept(code: string): string {
  return code.padStart(3, '0');
}

/** Centres per department, by population, at least two everywhere. */
function centresPerDepartment(target: number, deptPopulation: Map<string, number>): { code: string; n: number }[] {
  const totalPopulation = [...deptPopulation.values()].reduce((a, b) => a + b, 0);
  return DEPARTMENTS.map((d) => ({
    code: d.code,
    n: Math.max(2, Math.round((target * (deptPopulation.get(d.code) ?? 0)) / totalPopulation)),
  }));
}

function townsByDepartment(towns: readonly Town[]): Map<string, Town[]> {
  const byDept = new Map<string, Town[]>();
  for (const t of towns) {
    const list = byDept.get(t.deptCode) ?? [];
    list.push(t);
    byDept.set(t.deptCode, list);
  }
  return byDept;
}

/** A fictitious approval number of the department, unused so far, from the last five years. */
function newApprovalNumber(rnd: Random, year: number, code: string, taken: Set<string>): string {
  let agrementNumber: string;
  do {
    const yy = String((year - rnd.int(0, 4)) % 100).padStart(2, '0');
    agrementNumber = `R${yy}${approvalDept(code)}${String(rnd.int(1, 99_999)).padStart(5, '0')}`;
  } while (taken.has(agrementNumber));
  taken.add(agrementNumber);
  return agrementNumber;
}

/** Centres in each department's forty largest towns, weighted by population; with each one's town population. */
function generateCentres(
  rnd: Random,
  perDept: { code: string; n: number }[],
  townsByDept: Map<string, Town[]>,
  year: number,
): { centres: CentreRecord[]; centrePopulation: Map<string, number> } {
  const centres: CentreRecord[] = [];
  const centrePopulation = new Map<string, number>();
  const slugs = new Set<string>();
  const approvals = new Set<string>();
  for (const { code, n } of perDept) {
    const towns = (townsByDept.get(code) ?? []).sort((a, b) => b.population - a.population).slice(0, 40);
    if (towns.length === 0) continue;
    for (let i = 0; i < n; i++) {
      const town = rnd.weighted(towns, (t) => t.population ** 0.9);
      const brand = rnd.pick(BRANDS);
      const venue = rnd.pick(VENUES);
      const name = `${venue ? `${venue} ` : ''}${brand} ${town.name}`;
      let slug = slugify(name);
      for (let k = 2; slugs.has(slug); k++) slug = `${slugify(name)}-${k}`;
      slugs.add(slug);
      const agrementNumber = newApprovalNumber(rnd, year, code, approvals);
      const id = rnd.uuid();
      centres.push({
        id,
        slug,
        name,
        address: `${rnd.int(1, 120)} ${rnd.pick(STREETS)}`,
        city: town.name,
        postalCode: rnd.pick(town.postalCodes),
        deptCode: code,
        lat: round5(town.lat + (rnd.next() - 0.5) * 0.02),
        lng: round5(town.lng + (rnd.next() - 0.5) * 0.02),
        agrementNumber,
      });
      centrePopulation.set(id, town.population);
    }
  }
  return { centres, centrePopulation };
}

/** First days over the next year: Monday to Friday (so day 2 is never a Sunday), no public holiday on either day. */
function bookableFirstDays(today: string, year: number): string[] {
  const holidays = new Set([...publicHolidays(year), ...publicHolidays(year + 1)]);
  const days: string[] = [];
  for (let offset = 1; offset <= 365; offset++) {
    const day1 = addDays(today, offset);
    const weekday = new Date(`${day1}T00:00:00Z`).getUTCDay(); // 0 = Sunday
    if (weekday >= 1 && weekday <= 5 && !holidays.has(day1) && !holidays.has(addDays(day1, 1))) days.push(day1);
  }
  return days;
}

interface CentreSessions {
  centre: CentreRecord;
  count: number;
  median: number;
}

/** `count` sessions of one centre, on days that neither repeat nor touch another. */
function generateCentreSessions(rnd: Random, c: CentreSessions, days: string[], today: string): SessionRecord[] {
  const sessions: SessionRecord[] = [];
  const schedule = rnd.weighted(SCHEDULES, (s) => s.weight);
  const taken = new Set<string>();
  for (let k = 0; k < c.count; k++) {
    let day1 = rnd.pick(days);
    for (
      let tries = 0;
      tries < 20 && (taken.has(day1) || taken.has(addDays(day1, 1)) || taken.has(addDays(day1, -1)));
      tries++
    ) {
      day1 = rnd.pick(days);
    }
    if (taken.has(day1)) continue;
    taken.add(day1);
    const capacity = rnd.weighted(CAPACITIES, (x) => x.weight).value;
    sessions.push({
      id: rnd.uuid(),
      centreId: c.centre.id,
      courseNumber: `${c.centre.agrementNumber}-${day1.replaceAll('-', '')}`,
      day1,
      day2: addDays(day1, 1),
      // Most centres keep one timetable; a few sessions differ.
      ...(rnd.next() < 0.9 ? { startTime: schedule.start, endTime: schedule.end } : pickSchedule(rnd)),
      priceCents: price(rnd, c.median) * 100,
      capacity,
      spotsAvailable: spotsLeft(rnd, capacity, daysBetween(today, day1)),
    });
  }
  return sessions;
}

/**
 * Builds a realistic, fictitious catalogue from real reference geography: about 1,400 centres
 * spread over the 101 departments by population and about 20,000 sessions over the next year
 * (both times `scale`). The same seed, day and scale always give the same catalogue.
 */
export function generateDemoCatalogue(options: DemoOptions): CatalogueData {
  const rnd = new Random(`${options.seed ?? DEMO_SEED}:${options.today}`);
  const scale = options.scale ?? 1;
  const sessionTarget = (options.sessions ?? 20_000) * scale;
  const { towns: allTowns, deptPopulation } = loadTowns();
  const departments = new Map(DEPARTMENTS.map((d) => [d.code, d]));
  const perDept = centresPerDepartment((options.centres ?? 1400) * scale, deptPopulation);
  const year = Number(options.today.slice(0, 4));
  const { centres, centrePopulation } = generateCentres(rnd, perDept, townsByDepartment(allTowns), year);

  // Sessions: busier centres in bigger towns; scaled to the target over the whole year.
  const weights = centres.map((c) => 1 + Math.log10(1 + (centrePopulation.get(c.id) ?? 0)) / 2);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const days = bookableFirstDays(options.today, year);
  const sessions: SessionRecord[] = [];
  centres.forEach((centre, index) => {
    const region = departments.get(centre.deptCode)?.regionCode;
    const overseas = centre.deptCode.length === 3;
    const c: CentreSessions = {
      centre,
      count: Math.max(1, Math.round((sessionTarget * (weights[index] as number)) / weightSum)),
      median: region === ILE_DE_FRANCE ? 255 : overseas ? 235 : 222,
    };
    sessions.push(...generateCentreSessions(rnd, c, days, options.today));
  });
  return { centres, sessions };
}

function pickSchedule(rnd: Random): { startTime: string; endTime: string } {
  const s = rnd.weighted(SCHEDULES, (x) => x.weight);
  return { startTime: s.start, endTime: s.end };
}

/** Whole euros, 99 to 350, mostly around the median, a few promotions. */
function price(rnd: Random, median: number): number {
  if (rnd.next() < 0.04) return rnd.int(99, 149);
  let p = Math.round(median * Math.exp(0.11 * rnd.normal()));
  if (rnd.next() < 0.6) p = p - (p % 10) + 9; // the familiar …9 € price
  return Math.min(350, Math.max(99, p));
}

/** Sessions fill up as the date nears; some are full, many nearly so. */
function spotsLeft(rnd: Random, capacity: number, leadDays: number): number {
  const expectedFill = 1 - 0.75 * Math.min(1, leadDays / 240);
  const fill = Math.min(1, Math.max(0, expectedFill + 0.22 * rnd.normal()));
  return capacity - Math.round(capacity * fill);
}

function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

function round5(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}
