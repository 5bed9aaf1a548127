import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED } from '../accounts/area.js';
import { RETURN_PARAM } from '../accounts/return-path.js';
import type { User } from '../accounts/users.js';
import { sweepEvery } from '../jobs/sweep.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { ApprovalPage, type ApprovalPageProps, UnknownClaimPage } from './approval-page.js';
import { claimForPage } from './claim-for-page.js';
import { approveClaim, denyClaim } from './decide-claim.js';
import { CLAIM_ID, CLAIM_PAGE_PATH, claimPagePath } from './policy.js';
import { pruneClaims } from './prune-claims.js';
import { type AgentScope, isAgentScope } from './scopes.js';

const PRUNE_EVERY_MS = 3_600_000;

// A form of a few short fields.
const FORM_BODY_LIMIT = 4 * 1024;

const WRONG_CODE = (left: number) =>
  `Ce code ne correspond pas à celui de cette demande. Vérifiez-le auprès de l’assistant (il vous reste ${left} essai${left > 1 ? 's' : ''}).`;
const LOCKED =
  'Trop de codes erronés : par prudence, cette demande est refusée. Si c’est bien votre assistant, demandez-lui d’en faire une nouvelle.';
const NO_CODE = 'Indiquez le code de 8 lettres que l’assistant vous a donné.';
const NO_SCOPE = 'Cochez au moins une chose que l’assistant pourra faire, ou refusez sa demande.';
const IN_FORCE =
  'Cet assistant agit déjà pour une personne : il ne peut agir que pour une seule. Demandez-lui d’en faire une nouvelle inscription.';

/** A posted form's fields; `scope` (checkboxes) as a list. */
function formOf(body: string): { fields: Record<string, string>; scopes: string[] } {
  const params = new URLSearchParams(body);
  return { fields: Object.fromEntries(params), scopes: params.getAll('scope') };
}

/**
 * The claim's page for the person (claim_url, /agents/autoriser?claim=…): anyone may open it; to
 * answer, they sign in with the emailed link and come back to it. Answers are guarded forms; each
 * is one conditional update, so a repeated or late answer changes nothing.
 */
export async function registerClaimPages(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const { accounts } = app;
  const db = app.database.db;

  // Claims that no longer do anything are forgotten every hour, by any instance.
  sweepEvery(app, PRUNE_EVERY_MS, (now) => pruneClaims(db, now), 'agent claims: could not prune old claims');

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    claimId: string,
    user: User | undefined,
    status: number,
    extra: Partial<ApprovalPageProps> = {},
  ) => {
    const claim = CLAIM_ID.test(claimId) ? await claimForPage(db, claimId, app.clock.now()) : undefined;
    if (!claim) return privateHtml(reply, 404, renderPage(<UnknownClaimPage site={site} />));
    return privateHtml(
      reply,
      status,
      renderPage(
        <ApprovalPage
          site={site}
          claim={claim}
          formToken={accounts.guard.tokenFor(request, reply)}
          signedIn={user !== undefined}
          signInHref={`/connexion?${RETURN_PARAM}=${encodeURIComponent(claimPagePath(claim.id))}`}
          decidedHere={user !== undefined && claim.userId === user.id}
          {...extra}
        />,
      ),
    );
  };

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, formOf(body as string)),
    );
    const hidden = { schema: { hide: true } };

    scope.get(CLAIM_PAGE_PATH, hidden, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const claimId = typeof query.claim === 'string' ? query.claim : '';
      const user = await accounts.user(request);
      const justAnswered =
        query.reponse === 'autorise' ? 'approved' : query.reponse === 'refuse' ? 'denied' : undefined;
      return show(request, reply, claimId, user, 200, { justAnswered });
    });

    scope.post(CLAIM_PAGE_PATH, hidden, async (request, reply) => {
      const { fields, scopes } = (request.body ?? { fields: {}, scopes: [] }) as ReturnType<typeof formOf>;
      const claimId = fields.claim ?? '';
      const user = await accounts.user(request);
      const again = (status: number, extra: Partial<ApprovalPageProps>) =>
        show(request, reply, claimId, user, status, {
          userCode: (fields.user_code ?? '').slice(0, 20),
          chosen: scopes.filter(isAgentScope),
          ...extra,
        });
      if (accounts.guard.check(request, fields._csrf) !== 'ok') return again(403, { problem: GUARD_REFUSED });
      // Signed out meanwhile: the page leads to sign-in again.
      if (!user) return again(401, { problem: 'Connectez-vous pour répondre à cette demande.' });
      if (!CLAIM_ID.test(claimId)) return show(request, reply, claimId, user, 404);
      const now = app.clock.now();
      const done = (answer: 'autorise' | 'refuse') =>
        reply.header('cache-control', 'no-store').redirect(`${claimPagePath(claimId)}&reponse=${answer}`, 303);
      if (fields.decision === 'deny') {
        const denied = await denyClaim(db, claimId, user.id, now);
        return denied.kind === 'denied' ? done('refuse') : again(409, {});
      }
      if (fields.decision !== 'approve') return again(400, { problem: 'Choisissez « Autoriser » ou « Refuser ».' });
      const userCode = fields.user_code ?? '';
      if (userCode.trim() === '') return again(400, { error: { field: 'user_code', message: NO_CODE } });
      const granted: AgentScope[] = scopes.filter(isAgentScope);
      const claim = await claimForPage(db, claimId, now);
      const allowed = granted.filter((s) => claim?.requested.includes(s));
      if (allowed.length === 0) return again(400, { error: { field: 'scope', message: NO_SCOPE } });
      const decision = await approveClaim(db, { claimId, userId: user.id, userCode, scopes: allowed, now });
      switch (decision.kind) {
        case 'approved':
          request.log.info('agent claim approved');
          return done('autorise');
        case 'wrong-code':
          return again(400, { error: { field: 'user_code', message: WRONG_CODE(decision.triesLeft) } });
        case 'locked':
          return again(400, { problem: LOCKED });
        case 'in-force':
          return again(409, { problem: IN_FORCE });
        default:
          return again(409, {});
      }
    });
  });
}
