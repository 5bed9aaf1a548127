import type { McpServer } from '@modelcontextprotocol/server';
import { SEARCHABLE_CHARACTER_LITERAL } from '../../catalogue/fields.js';
import { SearchQuerySchema, type StageList, StageListSchema } from '../../catalogue/schemas.js';
import { SearchArgumentError, type SearchResult, searchStages } from '../../catalogue/search.js';
import { tellAnswerScope } from '../answer-scope.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_HINT, BOOKING_NOTE, READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { sessionLine } from '../format.js';
import { iconsOf } from '../icons.js';

export function registerSearchStages(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'search_stages',
    {
      title: 'Search course sessions',
      icons: iconsOf(ctx.publicBaseUrl, 'search'),
      description: `Find points-recovery courses ("stages de récupération de points") in France with places left, by place, dates, price or weekday. ${BOOKING_HINT}`,
      inputSchema: cachedJsonSchema(SearchQuerySchema, { names: { place: SEARCHABLE_CHARACTER_LITERAL } }),
      outputSchema: cachedJsonSchema(StageListSchema, { opaque: ['data'] }),
      annotations: READ_ONLY,
    },
    async (args) => {
      const snapshot = ctx.catalogue.snapshot;
      let found: SearchResult;
      try {
        found = searchStages(snapshot, args, ctx.clock.now());
      } catch (err) {
        // The same message as REST's 400, as an error result the model can act on.
        if (err instanceof SearchArgumentError) return toolError(`Invalid argument ${err.message}`);
        throw err;
      }
      // Drawn from the same departments as REST's answer to the same search: kept as long.
      tellAnswerScope({ version: snapshot.version, scope: found.scope, updatedAtIso: snapshot.updatedAtIso });
      const distances = found.distances;
      const list: StageList = {
        object: 'list',
        count: found.entries.length,
        total: found.total,
        description: found.description,
        platform: ctx.platformName,
        updatedAt: snapshot.updatedAtIso,
        data: found.entries.map((e, i) => (distances ? { ...e.view, distanceKm: distances[i] as number } : e.view)),
        ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}),
      };
      const lines = list.data.map(sessionLine);
      const more = found.nextCursor
        ? `\nShowing ${list.count} of ${found.total}. Next page: call search_stages again with the same arguments and cursor="${found.nextCursor}".`
        : '';
      const text =
        list.count === 0
          ? `${found.description}\nNo session matches. Try a wider area (region instead of city, a larger radiusKm), later dates, a higher maxPrice, other days, or includeUnavailable=true.`
          : `${found.description}\n${lines.join('\n')}${more}\n${BOOKING_NOTE}`;
      return result(list, text);
    },
  );
}
