import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransformObject, jsonSchemaTransform as zodJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SCOPE_DESCRIPTION } from '../agent-claims/scopes.js';
import { typedFormOf } from '../catalogue/fields.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { finishOpenApi } from './openapi-finish.js';

/** The REST interface's version (spec.md §9): it does not move with the package's release. */
export const REST_INTERFACE_VERSION = '1.0.0';

/**
 * A shared input field accepts its typed value, its text form and "" (catalogue/fields.ts), which
 * is what an MCP client's JSON needs spelled out. In a query string every value is text, and
 * OpenAPI's `type: integer` already means "an integer, written out": each query parameter shows
 * its typed form only, with the field's description, default and examples.
 */
const jsonSchemaTransform: typeof zodJsonSchemaTransform = (document) => {
  const out = zodJsonSchemaTransform(document);
  const query = document.schema?.querystring;
  const properties = (
    out.schema as { querystring?: { properties?: Record<string, Record<string, unknown>> } } | undefined
  )?.querystring?.properties;
  if (!(query instanceof z.ZodObject) || !properties) return out;
  for (const [name, field] of Object.entries(query.shape as Record<string, z.ZodType>)) {
    const typed = typedFormOf(field);
    const current = properties[name];
    if (!typed || !current) continue;
    const { anyOf: _forms, ...annotations } = current;
    const { $schema: _dialect, ...shape } = z.toJSONSchema(typed, { target: 'draft-2020-12', io: 'input' });
    properties[name] = { ...shape, ...annotations };
  }
  return out;
};

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
        version: REST_INTERFACE_VERSION,
        description:
          'Real-time availability of two-day driving-licence points-recovery courses ("stages de récupération de points") run by prefecture-approved centres in France. Public and read-only: booking and payment are done by the human user on the page given by each session\'s bookingUrl.',
        license: { name: 'Data: see /llms.txt', url: `${publicBaseUrl}/llms.txt` },
        contact: { name: `${platformName} API`, url: `${publicBaseUrl}/docs` },
      },
      servers: [{ url: publicBaseUrl }],
      tags: [
        { name: 'stages', description: 'Course sessions' },
        { name: 'health', description: 'Service status' },
        {
          name: 'eligibility',
          description:
            'Can a course give points back, and by when: the rules with their sources. Nothing sent is kept.',
        },
        {
          name: 'admin',
          description:
            'Operator and partner API: centres and sessions in, atomic place changes, imports. Needs an API key created from the command line (never an agent access token).',
        },
        {
          name: 'webhooks',
          description:
            'Signed event deliveries (Standard Webhooks) for partners and operators: subscriptions, their last deliveries, a test event. Needs an API key.',
        },
        {
          name: 'agents',
          description:
            'What an agent client does for the person who claimed it (POST /api/oauth/claim), with the scopes the person granted: a place held for a short time, which the person books themselves; alerts emailed to the person. Never booking, paying, or reading the person’s data.',
        },
      ],
      components: {
        securitySchemes: {
          agentToken: {
            type: 'oauth2',
            description:
              'An agent client’s access token (RFC 7591 registration, client_credentials). Scopes beyond `read` are granted by the person who claimed the client.',
            flows: {
              clientCredentials: {
                tokenUrl: `${publicBaseUrl}/api/oauth/token`,
                scopes: { read: 'Public data.', hold: SCOPE_DESCRIPTION.hold, alerts: SCOPE_DESCRIPTION.alerts },
              },
            },
          },
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
    transformObject: (input) => finishOpenApi(jsonSchemaTransformObject(input)),
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
