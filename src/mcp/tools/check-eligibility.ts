import type { McpServer } from '@modelcontextprotocol/server';
import { checkEligibility } from '../../agents/eligibility/check-eligibility.js';
import { EligibilityAnswerSchema, EligibilityInputSchema } from '../../agents/eligibility/schemas.js';
import { DomainError } from '../../core/errors.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { iconsOf } from '../icons.js';

export function registerCheckEligibility(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'check_eligibility',
    {
      title: 'Check eligibility',
      icons: iconsOf(ctx.publicBaseUrl, 'check'),
      description:
        'Can a course give points back now, how many, by when (48N), when the next counts; rules[] with sources, uncertain where the law is. near: sessions. Not stored.',
      inputSchema: cachedJsonSchema(EligibilityInputSchema),
      // Rules and sessions as plain objects: the text block and the REST OpenAPI describe them.
      outputSchema: cachedJsonSchema(EligibilityAnswerSchema, { opaque: ['rules', 'sessions'] }),
      annotations: READ_ONLY,
    },
    async (input) => {
      try {
        const answer = checkEligibility(ctx.catalogue.snapshot, input, ctx.clock.now());
        const rules = answer.rules.map(
          (r) => `- [${r.status}] ${r.text} (${r.sources.map((s) => s.title).join('; ')})`,
        );
        const sessions = (answer.sessions ?? []).map((s) => `- ${s.day1} ${s.city} ${s.priceEuros} €: ${s.bookingUrl}`);
        return result(answer, [answer.summary, ...rules, ...sessions].join('\n'));
      } catch (err) {
        if (err instanceof DomainError) return toolError(`Invalid argument ${err.message}`);
        throw err;
      }
    },
  );
}
