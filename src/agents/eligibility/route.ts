import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemResponse } from '../../http/problem.js';
import { checkEligibility } from './check-eligibility.js';
import { EligibilityAnswerSchema, EligibilityInputSchema } from './schemas.js';

/** What a person says about their licence is theirs: small, JSON, and never kept. */
const BODY_LIMIT = 4096;

/**
 * POST /api/eligibility: a POST so that what a person tells about their licence never sits in a
 * URL (logs, proxies, history). The body is not logged (http/request-log.ts writes method, route
 * and status), not stored, and the answer is never cached.
 */
const eligibilityRoute: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/eligibility',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        operationId: 'checkEligibility',
        summary: 'Can a course give points back, and by when?',
        description:
          'From what the person knows, whether a course gives points back now, how many at most, from when, the 48N letter’s deadline and when the next course counts. Every rule cites its source (Code de la route article or service-public.fr sheet); where the texts leave a case open its status is `uncertain`. With `near`, the first sessions that fit (before the deadline). Nothing is stored or logged. Same answer as the MCP tool check_eligibility.',
        tags: ['eligibility'],
        body: EligibilityInputSchema,
        response: {
          200: EligibilityAnswerSchema,
          400: problemResponse(
            'A field is invalid, impossible (a date after today) or contradicts another; errors[] names it.',
          ),
          429: problemResponse('Too many requests from this address or client: see Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const answer = checkEligibility(app.catalogue.snapshot, request.body, app.clock.now());
      return reply.header('cache-control', 'no-store').send(answer);
    },
  );
};

export async function registerEligibilityApi(app: FastifyInstance): Promise<void> {
  await app.register(eligibilityRoute);
}
