import type { McpServer } from '@modelcontextprotocol/server';
import { SearchQuerySchema, type StageList, StageListSchema } from '../../catalogue/schemas.js';
import { SearchArgumentError, type SearchResult, searchStages } from '../../catalogue/search.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_NOTE, READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { sessionLine } from '../format.js';

export function registerSearchStages(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'search_stages',
    {
      title: 'Search points-recovery course sessions',
      description: `Find upcoming two-day driving-licence points-recovery courses ("stages de récupération de points") in France, run by prefecture-approved centres. Use it when someone wants a course near a place (near: a town, postal code or lat,lng, within radiusKm, default 30 km; or city, department code, region), within dates or a budget, on given weekdays (days: "saturday"/"samedi"). Order with sort: date (default: date, start time, price), price (cheapest first) or distance (nearest first, with near). Returns total (all matches) and, when more remain, nextCursor: pass it as cursor with the same arguments for the next page. Each session has its price in euros, remaining places, distanceKm (with near), the centre (name, address, approval number) and a bookingUrl. By default only sessions with places left are returned; set includeUnavailable to also see full ones. All filters are optional and combine. Same data and rules as GET /api/stages. ${BOOKING_NOTE}`,
      inputSchema: cachedJsonSchema(SearchQuerySchema),
      outputSchema: cachedJsonSchema(StageListSchema),
      annotations: { title: 'Search course sessions', ...READ_ONLY },
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
