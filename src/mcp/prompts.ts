import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DEPARTMENTS } from '../catalogue/geography.js';
import { completeDepartment, completeTown, departmentCodeOf } from './completions.js';
import { BOOKING_NOTE, type ToolContext } from './context.js';
import { ARTICLE_URI_PREFIX, articleMarkdown } from './resources.js';

/** What explain_points_recovery is asked about, and the articles each case adds to the common ones. */
const SITUATIONS = {
  volontaire: [],
  probatoire: ['permis-probatoire-lettre-48n-stage-obligatoire'],
  judiciaire: ['stage-judiciaire-composition-penale-peine-complementaire'],
  'solde-nul': ['solde-nul-lettre-48si-invalidation'],
} as const satisfies Record<string, readonly string[]>;
type Situation = keyof typeof SITUATIONS;

const COMMON_ARTICLES = [
  'comment-fonctionne-un-stage-de-recuperation-de-points',
  'qui-peut-faire-un-stage-et-a-quelle-frequence',
  'quand-les-points-sont-ils-credites',
  'stage-volontaire-obligatoire-ou-judiciaire',
];

const FindCourseArgs = z.object({
  town: completable(
    z
      .string()
      .trim()
      .min(1, 'town must name a town, e.g. "Villeurbanne"')
      .max(100, 'town is at most 100 characters')
      .describe('Town where the user wants the course, e.g. "Villeurbanne" or "Saint-Étienne".'),
    (value, context) => completeTown(value ?? '', context?.arguments?.dept),
  ),
  maxPrice: z
    .string()
    .trim()
    .regex(/^(\d{1,4}(\.\d{1,2})?)?$/, 'maxPrice must be an amount in euros, e.g. "250"')
    .optional()
    .describe('Highest price the user will pay, in euros, e.g. "250".'),
  dept: completable(
    z
      .string()
      .trim()
      .refine((v) => v === '' || departmentCodeOf(v) !== undefined, 'dept must be a French department code or name')
      .describe('Department code or name, to tell apart towns of the same name, e.g. "69".'),
    (value) => completeDepartment(value ?? ''),
  ).optional(),
});

const ExplainArgs = z.object({
  situation: completable(
    z
      .enum(Object.keys(SITUATIONS) as [Situation, ...Situation[]], {
        error: `situation must be one of ${Object.keys(SITUATIONS).join(', ')}`,
      })
      .describe(
        'The user’s case: volontaire (voluntary course), probatoire (probationary licence, 48N letter), judiciaire (ordered by a court or prosecutor), solde-nul (no points left).',
      ),
    (value) => Object.keys(SITUATIONS).filter((s) => s.startsWith((value ?? '').trim().toLowerCase())) as Situation[],
  ).optional(),
});

/**
 * Two prompts: find a course in a town within a budget (a plan of tool calls), and explain how
 * points are recovered (the service's articles on the subject, embedded).
 */
export function registerPrompts(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    'find_course',
    {
      title: 'Find a course in a town, within a budget',
      description:
        'Ask the assistant to find points-recovery course sessions in or near a town, at most at a price, cheapest first, and to check places before giving the booking link.',
      argsSchema: FindCourseArgs,
    },
    ({ town, maxPrice, dept }) => {
      const code = dept ? departmentCodeOf(dept) : undefined;
      const department = code ? DEPARTMENTS.find((d) => d.code === code) : undefined;
      const where = department ? `${town} (department ${department.code}, ${department.name})` : town;
      const budget = maxPrice ? ` costing at most ${maxPrice} €` : '';
      const args = [
        `city: "${town}"`,
        ...(department ? [`dept: "${department.code}"`] : []),
        ...(maxPrice ? [`maxPrice: ${maxPrice}`] : []),
      ].join(', ');
      const text = [
        `Find me a two-day driving-licence points-recovery course (stage de récupération de points) in or near ${where}${budget}.`,
        `Call search_stages with { ${args} }. If nothing comes back, search the town's department (dept), then its region, and say that you widened the search.`,
        'Show the cheapest sessions first: dates, start and end times, price, places left, centre name and address, and its approval number.',
        'When I choose one, call check_availability with its id to confirm places and price right now, then give me its bookingUrl.',
        BOOKING_NOTE,
      ].join('\n');
      return {
        description: `Find a course in ${where}${budget}.`,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
      };
    },
  );

  server.registerPrompt(
    'explain_points_recovery',
    {
      title: 'Explain how points are recovered',
      description:
        'Ask the assistant to explain, from the service’s articles (in French, with their legal sources), how a points-recovery course gives points back: who may take one, how often, and when the points are credited; optionally for one situation.',
      argsSchema: ExplainArgs,
    },
    ({ situation }) => {
      const slugs = [...COMMON_ARTICLES, ...(situation ? SITUATIONS[situation] : [])];
      const articles = slugs.flatMap((slug) => {
        const a = ctx.articles.get(slug);
        return a ? [a] : [];
      });
      const text = `Explain to me, simply and in my language, how a points-recovery course (stage de récupération de points) gives driving-licence points back: how many points, who may take one and how often, and when the points are credited${situation ? `, in my situation: ${situation}` : ''}. Rely on the articles below, cite their legal sources, and say when a rule depends on my case.`;
      return {
        description: `How points are recovered${situation ? ` (${situation})` : ''}, from ${articles.length} articles.`,
        messages: [
          { role: 'user' as const, content: { type: 'text' as const, text } },
          ...articles.map((a) => ({
            role: 'user' as const,
            content: {
              type: 'resource' as const,
              resource: {
                uri: `${ARTICLE_URI_PREFIX}${a.slug}`,
                mimeType: 'text/markdown',
                text: articleMarkdown(a),
              },
            },
          })),
        ],
      };
    },
  );
}
