import type { FastifyInstance } from 'fastify';
import { claimInForce } from '../agent-claims/claim-in-force.js';
import { sweepEvery } from '../jobs/sweep.js';
import { AccessTokens } from './access-tokens.js';
import { pruneJtis } from './assertion-jtis.js';
import { ClientDocuments } from './cimd/client-documents.js';
import { ANONYMOUS, type Identity } from './identity.js';
import { KnownClients } from './known-clients.js';
import { oauthRoutes } from './routes/index.js';
import { SigningKeyStore } from './signing-keys.js';
import { authUrls } from './urls.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Issues and verifies access tokens; holds the signing key set. */
    accessTokens: AccessTokens;
    /** Which client_ids are registered (cached); the token check uses it. */
    knownClients: KnownClients;
    /** Clients known by a URL (metadata documents) and private_key_jwt key sets: fetched, cached. */
    clientDocuments: ClientDocuments;
  }
}

const JTI_PRUNE_EVERY_MS = 10 * 60 * 1000;

// Per-request storage for the identity, outside the request object's declared shape.
const identities = new WeakMap<object, Identity>();

/**
 * Declares `request.identity` for every request, anonymous until a hook says otherwise. A getter
 * rather than a shared default value, which Fastify forbids for objects.
 */
export function decorateIdentity(app: FastifyInstance): void {
  if (app.hasRequestDecorator('identity')) return;
  app.decorateRequest('identity', {
    getter(this: object) {
      return identities.get(this) ?? ANONYMOUS;
    },
    setter(this: object, value: Identity) {
      identities.set(this, value);
    },
  });
}

/**
 * The authorization server: signing keys (the first one is created on first start), the
 * `accessTokens` decorator and the /api/oauth/* routes. Call on the root instance.
 */
export async function registerAuth(app: FastifyInstance, options: { trustedCa?: string } = {}): Promise<void> {
  const urls = authUrls(app.config.publicBaseUrl);
  const keys = await SigningKeyStore.open(app.database.db, {
    clock: app.clock,
    configuredKey: app.config.signingKey,
    onReloadError: (err) => app.log.warn({ err }, 'could not reload the signing keys; keeping the cached set'),
  });
  const clients = new KnownClients(app.database.db, (err) =>
    app.log.warn({ err }, 'could not check a token client against the database; accepting its signed token'),
  );
  app.decorate('knownClients', clients);
  app.decorate('clientDocuments', new ClientDocuments(app.config.clientDocuments, app.clock, options.trustedCa));
  // Spent assertion jtis can no longer be replayed once expired: forgotten by any instance.
  sweepEvery(
    app,
    JTI_PRUNE_EVERY_MS,
    (now) => pruneJtis(app.database.db, now),
    'oauth: could not prune expired assertion jtis',
  );
  // Only tokens carrying a person's claim are checked against the database at each request.
  const claimCheck = async (claimId: string, clientId: string) =>
    (await claimInForce(app.database.db, claimId, clientId)) !== undefined;
  app.decorate('accessTokens', new AccessTokens(keys, urls, app.clock, clients, claimCheck));
  decorateIdentity(app);
  await app.register(oauthRoutes(urls));
}
