/**
 * Who is calling. Anonymous callers are rate-limited per IP address; a caller presenting a
 * valid access token is a registered client, limited per client_id. The credential only ever
 * grants reading public data (scope "read").
 */
export type Identity =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'client'; readonly clientId: string; readonly scope: 'read' }
  /** An operator or partner API key, on /api/admin/* only (never an agent credential). */
  | {
      readonly kind: 'apiKey';
      readonly keyId: string;
      readonly name: string;
      readonly role: 'admin' | 'partner';
      readonly centreId: string | null;
    };

export const ANONYMOUS: Identity = Object.freeze({ kind: 'anonymous' });

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity;
  }
}
