import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED } from '../accounts/area.js';
import { RETURN_PARAM } from '../accounts/return-path.js';
import type { User } from '../accounts/users.js';
import { answerUri } from '../auth/authorization-code/authorization-request.js';
import { CONSENT_PAGE_PATH, consentPagePath, REQUEST_ID } from '../auth/authorization-code/policy.js';
import { pruneRefreshTokens } from '../auth/authorization-code/refresh-tokens.js';
import {
  approveAuthorizationRequest,
  denyAuthorizationRequest,
  pruneAuthorizationRequests,
  type RequestForPage,
  requestForPage,
} from '../auth/authorization-code/requests.js';
import { authUrls } from '../auth/urls.js';
import { HTML_CSP } from '../http/security-headers.js';
import { sweepEvery } from '../jobs/sweep.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { ConsentPage, type ConsentPageProps, UnknownRequestPage } from './authorization-page.js';
import { isAgentScope } from './scopes.js';

const PRUNE_EVERY_MS = 3_600_000;
const FORM_BODY_LIMIT = 4 * 1024;

/**
 * The page's policy lets its form lead to the application's redirect URI: browsers apply
 * form-action to the redirect that follows a form's submission.
 */
function consentCsp(redirectUri: string): string {
  return HTML_CSP.replace("form-action 'self'", `form-action 'self' ${new URL(redirectUri).origin}`);
}

/**
 * /agents/connecter?demande={id}: where /api/oauth/authorize sends the person. They sign in with
 * the emailed link (and come back here), then approve or refuse with a guarded form; the answer
 * goes back to the application's redirect URI, with `state` and `iss` (RFC 9207).
 */
export async function registerAuthorizationPages(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const { accounts } = app;
  const db = app.database.db;
  const issuer = authUrls(app.config.publicBaseUrl).issuer;

  sweepEvery(
    app,
    PRUNE_EVERY_MS,
    (now) => Promise.all([pruneAuthorizationRequests(db, now), pruneRefreshTokens(db, now)]),
    'agent hosts: could not prune old authorization requests',
  );

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: RequestForPage | undefined,
    user: User | undefined,
    status: number,
    extra: Partial<ConsentPageProps> = {},
  ) => {
    if (!found) return privateHtml(reply, 404, renderPage(<UnknownRequestPage site={site} />));
    reply.header('content-security-policy', consentCsp(found.redirectUri));
    return privateHtml(
      reply,
      status,
      renderPage(
        <ConsentPage
          site={site}
          action={CONSENT_PAGE_PATH}
          requestId={found.id}
          clientName={found.clientName}
          clientHost={found.clientHost}
          redirectHost={new URL(found.redirectUri).host}
          requested={found.requested}
          status={found.status}
          signedIn={user !== undefined}
          signInHref={`/connexion?${RETURN_PARAM}=${encodeURIComponent(consentPagePath(found.id))}`}
          formToken={accounts.guard.tokenFor(request, reply)}
          {...extra}
        />,
      ),
    );
  };
  const find = (id: string) => (REQUEST_ID.test(id) ? requestForPage(db, id, app.clock.now()) : undefined);

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, new URLSearchParams(body as string)),
    );
    const hidden = { schema: { hide: true } };

    scope.get(CONSENT_PAGE_PATH, hidden, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const id = typeof query.demande === 'string' ? query.demande : '';
      return show(request, reply, await find(id), await accounts.user(request), 200);
    });

    scope.post(CONSENT_PAGE_PATH, hidden, async (request, reply) => {
      const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      const id = form.get('demande') ?? '';
      const user = await accounts.user(request);
      const found = await find(id);
      if (accounts.guard.check(request, form.get('_csrf') ?? undefined) !== 'ok')
        return show(request, reply, found, user, 403, { problem: GUARD_REFUSED });
      if (!user)
        return show(request, reply, found, user, 401, { problem: 'Connectez-vous pour répondre à cette demande.' });
      if (!found) return show(request, reply, found, user, 404);
      const now = app.clock.now();
      const decision = form.get('decision');
      if (decision !== 'approve' && decision !== 'deny')
        return show(request, reply, found, user, 400, { problem: 'Choisissez « Autoriser » ou « Refuser ».' });
      const answer =
        decision === 'deny'
          ? await denyAuthorizationRequest(db, id, user.id, now)
          : await approveAuthorizationRequest(db, {
              id,
              userId: user.id,
              scopes: form.getAll('scope').filter(isAgentScope),
              now,
            });
      if (answer.kind === 'not-pending') return show(request, reply, await find(id), user, 409);
      request.log.info(`agent host authorization ${answer.kind}`);
      const to =
        answer.kind === 'approved'
          ? answerUri(answer.redirectUri, issuer, { code: answer.code, state: answer.state ?? undefined })
          : answerUri(answer.redirectUri, issuer, {
              error: 'access_denied',
              error_description: 'The person refused.',
              state: answer.state ?? undefined,
            });
      return reply.header('cache-control', 'no-store').redirect(to, 303);
    });
  });
}
