import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dateIn } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { sessionAt } from '../../web/components.js';
import { siteErrorPage } from '../../web/error-page.js';
import type { FieldError } from '../../web/field.js';
import type { FormGuard, GuardVerdict } from '../../web/form-guard.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { checkEligibility } from './check-eligibility.js';
import { frenchDay } from './dates.js';
import {
  ELIGIBILITY_PATH,
  EligibilityPage,
  type EligibilityPageProps,
  FORM_FIELDS,
  type FormField,
  type FormValues,
} from './page.js';
import { type EligibilityInput, EligibilityInputSchema } from './schemas.js';

const FORM_BODY_LIMIT = 4096;

const GUARD_NOTICES: Record<Exclude<GuardVerdict, 'ok'>, string> = {
  'cross-site': 'Ce formulaire a été envoyé depuis un autre site : remplissez-le ici, sur cette page.',
  'no-cookie':
    'Votre navigateur n’a pas renvoyé le cookie de sécurité du formulaire (cookies bloqués, ou page ouverte depuis longtemps). Vérifiez que les cookies sont permis pour ce site, puis envoyez à nouveau le formulaire.',
  mismatch: 'Ce formulaire a expiré : envoyez-le à nouveau.',
};

const DATE_FIELDS = new Set<FormField>(['lastCourseEndedOn', 'letter48nReceivedOn', 'probationStartedOn']);
const FLAG_FIELDS = new Set<FormField>(['accompaniedDriving', 'courtOrdered', 'letter48si']);

/** The form's text as the shared input: "" is absent, a ticked box is true, points a number. */
function inputOf(values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of FORM_FIELDS) {
    const value = values[field]?.trim();
    if (!value) continue;
    if (FLAG_FIELDS.has(field)) input[field] = value === 'true';
    else if (field === 'pointsLeft') input[field] = /^\d{1,2}$/.test(value) ? Number(value) : value;
    else input[field] = value;
  }
  return input;
}

/** A refusal, said in French next to its field: the shared reasons are written for developers. */
function frenchMessage(name: string, reason: string, values: FormValues, today: string): FieldError {
  const field = name as FormField;
  if (DATE_FIELDS.has(field)) {
    const day = values[field] ?? '';
    return {
      field,
      message: /after today/.test(reason)
        ? `Cette date (${frenchDay(day)}) est après aujourd’hui (${frenchDay(today)}) : vérifiez-la.`
        : /before probationStartedOn/.test(reason)
          ? 'La lettre 48N ne peut pas être arrivée avant l’obtention du permis : vérifiez les deux dates.'
          : 'Entrez une date complète (jour, mois, année).',
    };
  }
  if (field === 'pointsLeft')
    return {
      field,
      message: /48SI/.test(reason)
        ? 'Avec la lettre 48SI, il ne reste aucun point : indiquez 0, ou laissez ce champ vide.'
        : /probationary/.test(reason)
          ? `C’est plus de points qu’un permis probatoire obtenu le ${frenchDay(values.probationStartedOn ?? today)} ne peut en avoir aujourd’hui.`
          : 'Indiquez un nombre de points entre 0 et 12.',
    };
  if (field === 'accompaniedDriving')
    return { field, message: 'Indiquez aussi la date d’obtention de votre permis probatoire.' };
  if (field === 'near')
    return { field, message: 'Nous ne trouvons pas ce lieu : essayez le nom d’une ville ou un code postal.' };
  return { field: 'pointsLeft', message: 'Une réponse n’a pas pu être lue : vérifiez le formulaire.' };
}

/**
 * GET and POST /peut-on-faire-un-stage: the French page of the eligibility rules. The answer is
 * computed from the form and shown once: never stored, never logged, never cached (no-store).
 */
export async function registerEligibilityPage(app: FastifyInstance, guard: FormGuard): Promise<void> {
  const site = siteInfo(app.config);
  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    props: Omit<EligibilityPageProps, 'site' | 'formToken'>,
  ) =>
    privateHtml(
      reply,
      status,
      renderPage(<EligibilityPage site={site} formToken={guard.tokenFor(request, reply)} {...props} />),
    );

  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.setErrorHandler((err: FastifyError, _request, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      const message =
        status === 413
          ? 'Le formulaire envoyé est trop long.'
          : status === 415
            ? 'Ce formulaire doit être envoyé depuis sa page.'
            : status === 429
              ? 'Vous avez fait beaucoup de demandes en peu de temps : réessayez dans une minute.'
              : status < 500
                ? 'Ce formulaire n’a pas pu être lu : remplissez-le à nouveau.'
                : 'Le service n’a pas pu répondre : réessayez dans quelques instants.';
      return privateHtml(reply, status, siteErrorPage(site, status, message));
    });

    scope.get(ELIGIBILITY_PATH, { schema: { hide: true } }, async (request, reply) =>
      show(request, reply, 200, { values: {}, errors: [] }),
    );

    scope.post(ELIGIBILITY_PATH, { schema: { hide: true } }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const values: FormValues = {};
      for (const field of FORM_FIELDS) if (typeof body[field] === 'string') values[field] = body[field] as string;
      const verdict = guard.check(request, body.formToken);
      if (verdict !== 'ok') return show(request, reply, 403, { values, errors: [], notice: GUARD_NOTICES[verdict] });

      const now = app.clock.now();
      const today = dateIn(now);
      const parsed = EligibilityInputSchema.safeParse(inputOf(values));
      if (!parsed.success) {
        const errors = parsed.error.issues.map((i) => frenchMessage(String(i.path[0] ?? ''), i.message, values, today));
        return show(request, reply, 400, { values, errors });
      }
      try {
        const answer = checkEligibility(app.catalogue.snapshot, parsed.data as EligibilityInput, now, 'fr');
        const sessions = (answer.sessions ?? []).flatMap((s) => sessionAt(app.catalogue.snapshot, s.id) ?? []);
        return show(request, reply, 200, { values, errors: [], answer, sessions });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const errors = (err.errors ?? []).map((f) => frenchMessage(f.name, f.reason, values, today));
        return show(request, reply, 400, { values, errors });
      }
    });
  });
}
