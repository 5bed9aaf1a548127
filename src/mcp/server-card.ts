import type { FastifyInstance } from 'fastify';
import { MCP_SERVER_CARD_PATH } from '../discovery/documents.js';
import { SERVICE_VERSION } from '../health/routes.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { MCP_PATH } from './plugin.js';
import { MCP_SERVER_NAME } from './server.js';

export const SERVER_CARD_PATHS = [MCP_SERVER_CARD_PATH, '/api/mcp/server-card'] as const;

/** Reverse-DNS namespace from the public host: stages.example.fr → fr.example.stages. */
function reverseDns(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname.split('.').reverse().join('.');
}

/**
 * The MCP server card (the shape of static.modelcontextprotocol.io's server-card schema): what the
 * server is and where to reach it, served at the spec's well-known path and the current draft's.
 */
export function registerServerCard(app: FastifyInstance): void {
  const base = app.config.publicBaseUrl;
  const card = JSON.stringify({
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: `${reverseDns(base)}/${MCP_SERVER_NAME}`,
    title: `${app.config.platformName} — MCP`,
    version: SERVICE_VERSION,
    description: 'Real-time places and prices of French points-recovery courses (stages de récupération de points).',
    websiteUrl: base,
    remotes: [{ type: 'streamable-http', url: `${base}${MCP_PATH}` }],
  });
  for (const path of SERVER_CARD_PATHS) {
    app.get(path, { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=3600').send(card),
    );
  }
}
