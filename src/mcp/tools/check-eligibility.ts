import type { McpServer } from '@modelcontextprotocol/server';
import { checkEligibility } from '../../agents/eligibility/check-eligibility.js';
import { EligibilityAnswerSchema, EligibilityInputSchema } from '../../agents/eligibility/schemas.js';
import { DomainError } from '../../core/errors.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { READ_ONLY, result, type ToolContext, toolError } from '../context.js';

export function registerCheckEligibility(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'check_eligibility',
    {
      title: 'Can I, and by when?',
      description:
        'Whether a course gives points back now, how many, the 48N deadline, when the next one counts; each rule cites its source, open cases say uncertain. With near: sessions that fit. Nothing stored. = POST /api/eligibility.',
      inputSchema: cachedJsonSchema(EligibilityInputSchema),
      outputSchema: cachedJsonSchema(EligibilityAnswerSchema),
      annotations: { title: 'Check eligibility', ...READ_ONLY },
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
