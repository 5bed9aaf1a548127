import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sweepEvery } from '../jobs/sweep.js';
import { sendsMail } from '../mail/transport.js';
import { FormGuard } from '../web/form-guard.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { SessionCookie, sessionSecrets } from './cookie.js';
import { pruneFormSubmissions } from './form-submissions.js';
import { LinkInvalidPage, LinkPage, LinkSentPage, SignInPage } from './pages.js';
import { RETURN_PARAM, returnPathOf, withReturnPath } from './return-path.js';
import { closeSession, closeUserSessions, pruneSessions, sessionUser } from './sessions.js';
import { sendSignInLink, signInLinkPath, signInWithLink } from './sign-in.js';
import { pruneSignInLinks, SIGN_IN_TOKEN, signInLinkUsable } from './sign-in-links.js';
import { normaliseEmail, type User } from './users.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The signed-in areas' accounts (src/accounts/). */
    accounts: Accounts;
  }
}

export interface Accounts {
  cookie: SessionCookie;
  /** The anti-forgery guard every form of the areas and the sign-in pages carries. */
  guard: FormGuard;
  /**
   * The request's signed-in user, from its session cookie only: an API key or an agent's access
   * token never signs anyone in here.
   */
  user(request: FastifyRequest): Promise<User | undefined>;
}

const PRUNE_EVERY_MS = 3_600_000;

// Forms of one or two short fields.
const FORM_BODY_LIMIT = 4 * 1024;

const GUARD_REFUSED =
  'Ce formulaire n’a pas pu être vérifié (envoyé depuis un autre site, cookies bloqués, ou page ouverte depuis longtemps) : rien n’a été fait. Envoyez-le à nouveau ci-dessous.';
const EXPIRED = 'Ce lien a déjà servi, a expiré (il est valable 15 minutes) ou n’a jamais existé.';

/**
 * Accounts and emailed sign-in: `/connexion` asks for an email and sends a one-time link through
 * the outbox; the link's page has a button that spends it and opens a server-side session named
 * by a signed cookie; `/deconnexion` ends it, or every session of the user. The areas ask
 * `app.accounts.user(request)`.
 */
export async function registerAccounts(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const db = app.database.db;
  const cookie = new SessionCookie(
    app.config.publicBaseUrl,
    await sessionSecrets(db, app.config.accounts.sessionSecrets),
  );
  const guard = new FormGuard(app.config.publicBaseUrl);
  const mail = sendsMail(app.config.mail);
  const accounts: Accounts = {
    cookie,
    guard,
    async user(request) {
      const id = cookie.sessionId(request);
      return id ? sessionUser(db, id, app.clock.now()) : undefined;
    },
  };
  app.decorate('accounts', accounts);

  // Links and sessions that can no longer be used, and forms' ids spent a day ago, are forgotten
  // every hour, by any instance.
  sweepEvery(
    app,
    PRUNE_EVERY_MS,
    (now) => Promise.all([pruneSignInLinks(db, now), pruneSessions(db, now), pruneFormSubmissions(db, now)]),
    'accounts: could not prune expired links, sessions and form ids',
  );

  const page = (reply: FastifyReply, status: number, body: preact.VNode) =>
    privateHtml(reply, status, renderPage(body));
  const noStore = { schema: { hide: true } };
  const linkRoute = { schema: { hide: true }, config: { logUrl: false } };

  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    scope.get('/connexion', noStore, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const notice = query.deconnecte === '1' ? 'Vous êtes déconnecté.' : undefined;
      return page(
        reply,
        200,
        <SignInPage
          site={site}
          formToken={guard.tokenFor(request, reply)}
          notice={notice}
          returnPath={returnPathOf(query[RETURN_PARAM])}
        />,
      );
    });

    scope.post('/connexion', noStore, async (request, reply) => {
      const form = formOf(request.body);
      const returnPath = returnPathOf(form[RETURN_PARAM]);
      const again = (status: number, props: { error?: { field: string; message: string }; notice?: string }) =>
        page(
          reply,
          status,
          <SignInPage
            site={site}
            formToken={guard.tokenFor(request, reply)}
            email={typeof form.email === 'string' ? form.email.slice(0, 254) : ''}
            returnPath={returnPath}
            {...props}
          />,
        );
      if (guard.check(request, form._csrf) !== 'ok') return again(403, { notice: GUARD_REFUSED });
      const email = normaliseEmail(form.email);
      if (!email)
        return again(400, {
          error: { field: 'email', message: 'Indiquez une adresse e-mail complète, par exemple nom@exemple.fr.' },
        });
      const budget = await app.chargeSignIn(request, email);
      if (!budget.allowed) {
        reply.header('retry-after', budget.retryAfterSeconds);
        return again(429, {
          notice: `Trop de liens de connexion ont été demandés pour cette adresse ou depuis ce réseau. Réessayez dans ${Math.ceil(budget.retryAfterSeconds / 60)} minute(s).`,
        });
      }
      await sendSignInLink(db, email, app.clock.now(), {
        baseUrl: site.baseUrl,
        platformName: site.name,
        mail,
        returnPath,
      });
      return page(reply, 200, <LinkSentPage site={site} mail={mail} />);
    });

    scope.get('/connexion/lien/:token', linkRoute, async (request, reply) => {
      const { token } = request.params as { token: string };
      if (!SIGN_IN_TOKEN.test(token) || !(await signInLinkUsable(db, token, app.clock.now())))
        return page(reply, 410, <LinkInvalidPage site={site} message={EXPIRED} />);
      const returnPath = returnPathOf((request.query as Record<string, unknown>)[RETURN_PARAM]);
      return page(
        reply,
        200,
        <LinkPage
          site={site}
          formToken={guard.tokenFor(request, reply)}
          action={withReturnPath(signInLinkPath(token), returnPath)}
        />,
      );
    });

    scope.post('/connexion/lien/:token', linkRoute, async (request, reply) => {
      const { token } = request.params as { token: string };
      const form = formOf(request.body);
      const returnPath = returnPathOf((request.query as Record<string, unknown>)[RETURN_PARAM]);
      if (!SIGN_IN_TOKEN.test(token)) return page(reply, 410, <LinkInvalidPage site={site} message={EXPIRED} />);
      if (guard.check(request, form._csrf) !== 'ok')
        return page(
          reply,
          403,
          <LinkPage
            site={site}
            formToken={guard.tokenFor(request, reply)}
            action={withReturnPath(signInLinkPath(token), returnPath)}
            notice={GUARD_REFUSED}
          />,
        );
      const result = await signInWithLink(db, token, app.clock.now(), cookie.sessionId(request));
      if (result.kind === 'invalid') return page(reply, 410, <LinkInvalidPage site={site} message={EXPIRED} />);
      if (result.kind === 'disabled')
        return page(
          reply,
          403,
          <LinkInvalidPage
            site={site}
            message="Ce compte est désactivé. Adressez-vous au responsable de votre centre ou à l’exploitant du service."
          />,
        );
      cookie.set(reply, result.sessionId);
      // Back to the page that asked for the sign-in (a claim's page), or to the person's area.
      return reply.header('cache-control', 'no-store').redirect(returnPath ?? result.home, 303);
    });

    scope.post('/deconnexion', noStore, async (request, reply) => {
      const form = formOf(request.body);
      if (guard.check(request, form._csrf) !== 'ok')
        return page(reply, 403, <LinkInvalidPage site={site} message={GUARD_REFUSED} />);
      const id = cookie.sessionId(request);
      if (id) {
        const user = form.partout === '1' ? await sessionUser(db, id, app.clock.now()) : undefined;
        if (user) await closeUserSessions(db, user.id);
        else await closeSession(db, id);
      }
      cookie.clear(reply);
      return reply.header('cache-control', 'no-store').redirect('/connexion?deconnecte=1', 303);
    });
  });
}

function formOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}
