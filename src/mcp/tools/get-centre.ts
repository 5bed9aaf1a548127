import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { argumentsObject, countField, flagField, textField } from '../../catalogue/fields.js';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { CentreSchema, StageSessionSchema } from '../../catalogue/schemas.js';
import { firstUpcoming } from '../../catalogue/session-status.js';
import { tellAnswerScope } from '../answer-scope.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_HINT, BOOKING_NOTE, READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { sessionLine } from '../format.js';
import { iconsOf } from '../icons.js';

export const CENTRE_SESSIONS_MAX = 50;
/** How many sessions get_centre lists when not told. */
export const CENTRE_SESSIONS_DEFAULT = 10;

const Input = argumentsObject({
  idOrSlug: textField('idOrSlug', 200, 'a centre id (UUID) or slug').describe(
    'Centre id or slug, from a session’s centre.',
  ),
  limit: countField('limit', CENTRE_SESSIONS_MAX, CENTRE_SESSIONS_DEFAULT).describe('Sessions to list.'),
  includeUnavailable: flagField('includeUnavailable').describe('Also list full sessions.'),
});

const CentreSessionSchema = StageSessionSchema.omit({ centre: true });

const Output = z.object({
  centre: CentreSchema,
  upcomingCount: z.int().min(0).describe('Upcoming sessions of this centre matching includeUnavailable, in all.'),
  sessions: z.array(CentreSessionSchema).describe('The first upcoming sessions, ordered by date, at most `limit`.'),
});

export type CentreDetails = z.output<typeof Output>;

/**
 * A centre and its first upcoming sessions, with the readable text of the answer: what get_centre
 * and the stages://centres/{idOrSlug} resource give. Undefined when no centre has that id or slug.
 */
export function centreDetails(
  ctx: ToolContext,
  idOrSlug: string,
  limit: number,
  includeUnavailable: boolean,
): { value: CentreDetails; text: string } | undefined {
  const snapshot = ctx.catalogue.snapshot;
  const key = idOrSlug.toLowerCase();
  const centre = snapshot.centresById.get(key) ?? snapshot.centresBySlug.get(key);
  if (!centre) return undefined;
  // The centre (any centre's change may give its slug to another) and its department's sessions.
  tellAnswerScope({
    version: snapshot.version,
    scope: { depts: [centre.view.deptCode], centres: true },
    updatedAtIso: '',
  });
  const all = snapshot.sessionsByCentre.get(centre.view.id) ?? [];
  const upcoming = all
    .slice(firstUpcoming(all, ctx.clock.now().getTime()))
    .filter((e: SessionEntry) => includeUnavailable || e.record.spotsAvailable > 0);
  const sessions = upcoming.slice(0, limit).map(({ view: { centre: _omit, ...rest } }) => rest);
  const c = centre.view;
  const head = `${c.name}, ${c.address}, ${c.postalCode} ${c.city} (${c.deptName}, ${c.region}). Approval ${c.agrementNumber}. ${c.url}`;
  const text =
    sessions.length === 0
      ? `${head}\nNo upcoming session${includeUnavailable ? '' : ' with places left'}.`
      : `${head}\n${upcoming.length} upcoming session${upcoming.length === 1 ? '' : 's'}${includeUnavailable ? '' : ' with places left'}; the first ${sessions.length}:\n${sessions.map(sessionLine).join('\n')}\n${BOOKING_NOTE}`;
  return { value: { centre: c, upcomingCount: upcoming.length, sessions }, text };
}

export function registerGetCentre(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get_centre',
    {
      title: 'Get a centre',
      icons: iconsOf(ctx.publicBaseUrl, 'centre'),
      description: `An approved centre by id or slug, and its upcoming sessions with places (all: includeUnavailable). ${BOOKING_HINT}`,
      inputSchema: cachedJsonSchema(Input),
      // The centre and its sessions as plain objects, like every record of the catalogue in the tools'
      // output schemas: the spec's fields, described in the OpenAPI (Centre, StageSession).
      outputSchema: cachedJsonSchema(Output, { opaque: ['centre', 'sessions'] }),
      annotations: READ_ONLY,
    },
    async ({ idOrSlug, limit, includeUnavailable }) => {
      const found = centreDetails(ctx, idOrSlug, limit, includeUnavailable);
      if (!found) {
        return toolError(`No centre has the id or slug "${idOrSlug}". Centres appear in the results of search_stages.`);
      }
      return result(found.value, found.text);
    },
  );
}
