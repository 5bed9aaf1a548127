import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SERVICE_VERSION } from '../health/routes.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';

/** Registers the OpenAPI generator. Must run before the routes it describes are added. */
export async function registerOpenApi(
  app: FastifyInstance,
  publicBaseUrl: string,
  platformName: string,
): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${platformName} API`,
        version: SERVICE_VERSION,
        description:
          'Real-time availability of two-day driving-licence points-recovery courses ("stages de récupération de points") run by prefecture-approved centres in France. Public and read-only: booking and payment are done by the human user on the page given by each session\'s bookingUrl.',
        license: { name: 'Data: see /llms.txt', url: `${publicBaseUrl}/llms.txt` },
      },
      servers: [{ url: publicBaseUrl }],
      tags: [
        { name: 'stages', description: 'Course sessions' },
        { name: 'health', description: 'Service status' },
        {
          name: 'admin',
          description:
            'Operator and partner API: centres and sessions in, atomic place changes, imports. Needs an API key created from the command line (never an agent access token).',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An operator (role admin) or partner (one centre) API key, `sk_…`, created with `npm run cli -- apikey:create`.',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
    hideUntagged: true,
  });
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  let cached: string | undefined;
  app.get('/openapi.json', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) => {
    cached ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(cached);
  });
}
