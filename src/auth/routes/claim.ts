import type { FastifyInstance } from 'fastify';
import { problem, sendProblem } from '../../http/problem.js';
import type { AuthUrls } from '../urls.js';
import { CLAIM_PATH } from './common.js';

/**
 * spec.md §4.7: the claim flow (attaching an anonymous client to a human account) is not needed
 * until authenticated agent actions launch. Say so rather than pretend.
 */
export function claimRoute(app: FastifyInstance, urls: AuthUrls): void {
  app.route({
    method: ['GET', 'POST'],
    url: CLAIM_PATH,
    handler: async (request, reply) => {
      reply.header('link', `<${urls.documentation}>; rel="service-doc"`);
      return sendProblem(
        reply,
        problem(
          501,
          'claim_not_available',
          'Claiming an anonymous client is not available yet: it will only be needed once authenticated agent actions launch. Anonymous clients need no claim: register, get a token and call the API. See /llms.txt.',
          { instance: request.url.split('?')[0] },
        ),
      );
    },
  });
}
