import type { McpServer } from '@modelcontextprotocol/server';
import {
  type SessionAvailability,
  SessionAvailabilitySchema,
  sessionAvailability,
} from '../../catalogue/availability.js';
import { argumentsObject, sessionIdField } from '../../catalogue/fields.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_HINT, BOOKING_NOTE, READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { iconsOf } from '../icons.js';

const Input = argumentsObject({ sessionId: sessionIdField });

/** The readable text of a session's availability: what check_availability and stages://sessions/{id} give. */
export function availabilityText(out: SessionAvailability): string {
  const s = out.session;
  return `${out.message}\nCourse number ${out.courseNumber}; centre approval ${s.centre.agrementNumber}.${out.status === 'available' ? `\nBook: ${s.bookingUrl}\n${BOOKING_NOTE}` : ''}`;
}

export function registerCheckAvailability(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'check_availability',
    {
      title: 'Check availability',
      icons: iconsOf(ctx.publicBaseUrl, 'check'),
      description: `Whether a session can be booked now: places left, price, status, centre. Call it just before the user books. ${BOOKING_HINT}`,
      inputSchema: cachedJsonSchema(Input),
      // The session as a plain object: its fields are the search's sessions', described in the OpenAPI.
      outputSchema: cachedJsonSchema(SessionAvailabilitySchema, { opaque: ['session'] }),
      annotations: READ_ONLY,
    },
    async ({ sessionId }) => {
      const out = sessionAvailability(ctx.catalogue.snapshot, sessionId, ctx.clock.now());
      if (!out) {
        return toolError(
          `No session has the id ${sessionId}. It may have been removed; use search_stages to find current sessions.`,
        );
      }
      return result(out, availabilityText(out));
    },
  );
}
