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
   * Sessions per centre multiplied by this, as parallel groups (a second room): `--scale 10` makes
   * about 200,000 sessions for load tests. 1 gives the demo itself, unchanged.
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

/**
 * Builds a realistic, fictitious catalogue from real reference geography: about 1,400 centres
 * spread over the 101 departments by population and about 20,000 sessions over the next year.
 * The same seed and day always give the same catalogue.
 */
export function generateDemoCatalogue(options: DemoOptions): CatalogueData {
  const rnd = new Random(`${options.seed ?? DEMO_SEED}:${options.today}`);
  const centreTarget = options.centres ?? 1400;
  const sessionTarget = options.sessions ?? 20_000;
  const { towns: allTowns, deptPopulation } = loadTowns();
  const departments = new Map(DEPARTMENTS.map((d) => [d.code, d]));

  // Centres per department, by population, at least two everywhere.
  const totalPopulation = [...deptPopulation.values()].reduce((a, b) => a + b, 0);
  const perDept = DEPARTMENTS.map((d) => ({
    code: d.code,
    n: Math.max(2, Math.round((centreTarget * (deptPopulation.get(d.code) ?? 0)) / totalPopulation)),
  }));

  const townsByDept = new Map<string, Town[]>();
  for (const p of allTowns) {
    const list = townsByDept.get(p.deptCode) ?? [];
    list.push(p);
    townsByDept.set(p.deptCode, list);
  }

  const year = Number(options.today.slice(0, 4));
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
      let agrementNumber: string;
      do {
        const yy = String((year - rnd.int(0, 4)) % 100).padStart(2, '0');
        agrementNumber = `R${yy}${approvalDept(code)}${String(rnd.int(1, 99_999)).padStart(5, '0')}`;
      } while (approvals.has(agrementNumber));
      approvals.add(agrementNumber);
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

  // Sessions: busier centres in bigger towns; scaled to the target over the whole year.
  const weights = centres.map((c) => 1 + Math.log10(1 + (centrePopulation.get(c.id) ?? 0)) / 2);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const holidays = new Set([...publicHolidays(year), ...publicHolidays(year + 1)]);
  const bookableDays: string[] = [];
  for (let offset = 1; offset <= 365; offset++) {
    const day1 = addDays(options.today, offset);
    const weekday = new Date(`${day1}T00:00:00Z`).getUTCDay(); // 0 = Sunday
    // day1 Monday to Friday, so day2 is Tuesday to Saturday: never a Sunday.
    if (weekday >= 1 && weekday <= 5 && !holidays.has(day1) && !holidays.has(addDays(day1, 1))) bookableDays.push(day1);
  }

  const sessions: SessionRecord[] = [];
  centres.forEach((centre, index) => {
    const count = Math.max(1, Math.round((sessionTarget * (weights[index] as number)) / weightSum));
    const region = departments.get(centre.deptCode)?.regionCode;
    const overseas = centre.deptCode.length === 3;
    const median = region === ILE_DE_FRANCE ? 255 : overseas ? 235 : 222;
    const schedule = rnd.weighted(SCHEDULES, (s) => s.weight);
    for (let room = 0; room < (options.scale ?? 1); room++) {
      const taken = new Set<string>();
      for (let k = 0; k < count; k++) {
        let day1 = rnd.pick(bookableDays);
        for (
          let tries = 0;
          tries < 20 && (taken.has(day1) || taken.has(addDays(day1, 1)) || taken.has(addDays(day1, -1)));
          tries++
        ) {
          day1 = rnd.pick(bookableDays);
        }
        if (taken.has(day1)) continue;
        taken.add(day1);
        const capacity = rnd.weighted(CAPACITIES, (c) => c.weight).value;
        sessions.push({
          id: rnd.uuid(),
          centreId: centre.id,
          courseNumber: `${centre.agrementNumber}-${day1.replaceAll('-', '')}${room > 0 ? `-${room + 1}` : ''}`,
          day1,
          day2: addDays(day1, 1),
          // Most centres keep one timetable; a few sessions differ.
          ...(rnd.next() < 0.9 ? { startTime: schedule.start, endTime: schedule.end } : pickSchedule(rnd)),
          priceCents: price(rnd, median) * 100,
          capacity,
          spotsAvailable: spotsLeft(rnd, capacity, daysBetween(options.today, day1)),
        });
      }
    }
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
