import type { McpServer } from '@modelcontextprotocol/server';
import { dateIn } from '../../catalogue/clock.js';
import { SearchQuerySchema, type StageList, StageListSchema } from '../../catalogue/schemas.js';
import { searchStages } from '../../catalogue/search.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_NOTE, READ_ONLY, result, type ToolContext } from '../context.js';
import { sessionLine } from '../format.js';

export function registerSearchStages(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'search_stages',
    {
      title: 'Search points-recovery course sessions',
      description: `Find upcoming two-day driving-licence points-recovery courses ("stages de récupération de points") in France, run by prefecture-approved centres. Use it when someone wants a course near a place (city, department code or region), within dates or a budget. Returns sessions ordered by date, start time and price, each with its price in euros, remaining places, the centre (name, address, approval number) and a bookingUrl. By default only sessions with places left are returned; set includeUnavailable to also see full ones. All filters are optional and combine. Same data and rules as GET /api/stages. ${BOOKING_NOTE}`,
      inputSchema: cachedJsonSchema(SearchQuerySchema),
      outputSchema: cachedJsonSchema(StageListSchema),
      annotations: { title: 'Search course sessions', ...READ_ONLY },
    },
    async (args) => {
      const snapshot = ctx.catalogue.snapshot;
      const found = searchStages(snapshot, args, dateIn(ctx.clock.now()));
      const list: StageList = {
        object: 'list',
        count: found.entries.length,
        description: found.description,
        platform: ctx.platformName,
        updatedAt: snapshot.updatedAtIso,
        data: found.entries.map((e) => e.view),
      };
      const lines = list.data.map(sessionLine);
      const text =
        list.count === 0
          ? `${found.description}\nNo session matches. Try a wider area (region instead of city), later dates, a higher maxPrice, or includeUnavailable=true.`
          : `${found.description}\n${lines.join('\n')}\n${BOOKING_NOTE}`;
      return result(list, text);
    },
  );
}
