import { createHash } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { SERVICE_VERSION } from '../core/version.js';
import { MCP_SERVER_CARD_PATH } from '../discovery/documents.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { MCP_PATH } from './json-rpc.js';
import { MCP_SERVER_NAME } from './server.js';

export const SERVER_CARD_PATHS = [MCP_SERVER_CARD_PATH, '/api/mcp/server-card'] as const;

/** The card's registered media type (SEP-2127, experimental-ext-server-card docs/discovery.md). */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/**
 * The revisions this endpoint serves: the stateless 2026-07-28 revision (the SDK's modern handler)
 * and every initialize-era revision the SDK negotiates, newest first.
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];

/** Whether an Accept header names the card's own media type (with a q above 0). */
function wantsCardType(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return type === SERVER_CARD_MEDIA_TYPE && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** Reverse-DNS namespace from the public host: stages.example.fr → fr.example.stages. */
function reverseDns(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname.split('.').reverse().join('.');
}

/**
 * The MCP server card (the shape of static.modelcontextprotocol.io's server-card schema): what the
 * server is, where to reach it and which revisions it speaks, served at the well-known path and
 * the draft's `<endpoint>/server-card`, with an ETag for revalidation.
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
    remotes: [
      { type: 'streamable-http', url: `${base}${MCP_PATH}`, supportedProtocolVersions: SERVED_PROTOCOL_VERSIONS },
    ],
  });
  const etag = `"${createHash('sha256').update(card).digest('base64url').slice(0, 27)}"`;
  for (const path of SERVER_CARD_PATHS) {
    app.get(path, { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (request, reply) => {
      // Its registered media type to a client that asks for it; plain JSON to everyone else.
      const type = wantsCardType(request.headers.accept) ? SERVER_CARD_MEDIA_TYPE : 'application/json';
      reply.header('cache-control', 'public, max-age=3600').header('vary', 'Accept').header('etag', etag);
      const match = request.headers['if-none-match'];
      if (match?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return reply.code(304).send();
      return reply.type(`${type}; charset=utf-8`).send(card);
    });
  }
}
