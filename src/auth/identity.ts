/**
 * Who is calling. Anonymous callers are rate-limited per IP address; a caller presenting a
 * valid access token is a registered client, limited per client_id (claimed or not). Reading
 * public data (scope "read") needs nothing more; `scopes` adds what a person who claimed the
 * client granted it (`hold`, `alerts`), and `claim` names that claim (see agent-claims/agent-person.ts).
 */
export type Identity =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'client';
      readonly clientId: string;
      readonly scope: 'read';
      readonly scopes: readonly string[];
      readonly claim?: { readonly claimId: string; readonly subject: string };
    }
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
