import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { putCentre, setCentreSuspension } from '../../admin/repository/centres.js';
import { CentreInputSchema } from '../../admin/schemas.js';
import { dateIn } from '../../core/clock.js';
import { UUID } from '../../core/uuid.js';
import { WriteRefused } from '../../db/write-refused.js';
import { userActor } from '../../history/actor.js';
import type { FieldError } from '../../web/field.js';
import { CENTRE_FIELDS, type CentreFieldName, CentrePage, CentresPage, NewCentrePage } from '../centre-pages.js';
import { ENDING_WITHIN_DAYS, GUARD_REFUSED, NOT_FOUND, type OperatorContext, operator } from '../context.js';
import type { Messages } from '../layout.js';
import { PATHS } from '../layout.js';
import { approvalsEnding, centreBookings, centreById, searchCentres, suspendedCentres } from '../repository.js';

/** Each field's rule, in French, shown next to it when the admin API's validation refuses it. */
const FIELD_RULES: Record<CentreFieldName, string> = {
  name: 'Saisissez le nom du centre (200 caractères au plus).',
  slug: 'Lettres minuscules, chiffres et tirets simples, par exemple cap-conduite-lyon ; il doit être libre.',
  address: 'Saisissez l’adresse (300 caractères au plus).',
  postalCode: 'Le code postal (5 chiffres) doit desservir une commune du département.',
  city: 'Saisissez la ville.',
  deptCode: 'Un des 101 départements : 01 à 95, 2A, 2B, 971 à 974, 976.',
  lat: 'Une latitude en degrés décimaux, dans le département (par exemple 45.76).',
  lng: 'Une longitude en degrés décimaux, dans le département (par exemple 4.83).',
  agrementNumber:
    'R, l’année sur 2 chiffres, le département sur 3 caractères, puis 5 chiffres (R2406900123) ; il doit être libre.',
  approvedOn: 'Une date réelle, AAAA-MM-JJ.',
  phone: 'Un numéro de téléphone, par exemple 04 72 00 00 00.',
  email: 'Une adresse e-mail, par exemple contact@centre.fr.',
};
const TAKEN = 'Un autre centre a déjà cet identifiant d’adresse ou ce numéro d’agrément : rien n’a été créé.';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The form as the admin API's body: numbers as numbers, empty optional fields absent. */
function centreBody(values: Partial<Record<CentreFieldName, string>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name] of CENTRE_FIELDS) {
    const v = values[name] ?? '';
    if (v === '' && (name === 'approvedOn' || name === 'phone' || name === 'email')) continue;
    body[name] = name === 'lat' || name === 'lng' ? (v === '' ? v : Number(v.replace(',', '.'))) : v;
  }
  return body;
}

/**
 * The centres: GET /administration (search, approvals ending, suspended), a new centre through
 * the admin API's PUT validation and function, a centre's page with its bookings, and its
 * suspension or restoration through PATCH /api/admin/centres/{id}'s function, recorded as the operator's.
 */
export function centreRoutes(app: FastifyInstance, context: OperatorContext): void {
  const db = app.database.db;

  app.get(PATHS.home, async (request, reply) => {
    const user = operator(request);
    const q = text((request.query as Record<string, unknown>).q).slice(0, 100);
    const today = dateIn(app.clock.now());
    const [found, ending, suspended] = await Promise.all([
      searchCentres(db, q),
      approvalsEnding(db, today, ENDING_WITHIN_DAYS),
      suspendedCentres(db),
    ]);
    return context.page(
      reply,
      200,
      <CentresPage
        site={context.site}
        email={user.email}
        query={q}
        found={found}
        ending={ending}
        suspended={suspended}
        standing={context.standing}
      />,
    );
  });

  const newCentreForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    values: Partial<Record<CentreFieldName, string>> = {},
    errors: FieldError[] = [],
  ) =>
    context.page(
      reply,
      status,
      <NewCentrePage site={context.site} formToken={context.token(request, reply)} values={values} errors={errors} />,
    );

  app.get(PATHS.newCentre, async (request, reply) => newCentreForm(request, reply, 200));

  app.post(PATHS.newCentre, async (request, reply) => {
    const user = operator(request);
    const form = (request.body ?? {}) as Record<string, unknown>;
    const values = Object.fromEntries(CENTRE_FIELDS.map(([name]) => [name, text(form[name])])) as Partial<
      Record<CentreFieldName, string>
    >;
    if (!context.formOk(request, form))
      return newCentreForm(request, reply, 403, values, [{ field: 'form', message: GUARD_REFUSED }]);
    const parsed = CentreInputSchema.safeParse(centreBody(values));
    if (!parsed.success) {
      const errors: FieldError[] = [];
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0]) as CentreFieldName;
        if (field in FIELD_RULES && !errors.some((e) => e.field === field))
          errors.push({ field, message: FIELD_RULES[field] });
      }
      return newCentreForm(request, reply, 400, values, errors);
    }
    const id = randomUUID();
    try {
      await putCentre(db, id, parsed.data, undefined, userActor(user));
    } catch (err) {
      if (!(err instanceof WriteRefused)) throw err;
      return newCentreForm(request, reply, 409, values, [{ field: 'slug', message: TAKEN }]);
    }
    await app.catalogue.refresh();
    return reply.redirect(`${PATHS.centre(id)}?cree=1`, 303);
  });

  async function centrePage(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    status: number,
    messages: Messages = {},
    form: { reason?: string; reasonError?: FieldError } = {},
  ) {
    const centre = UUID.test(id) ? await centreById(db, id.toLowerCase()) : undefined;
    if (!centre) return context.refusal(reply, 404, 'Page introuvable', NOT_FOUND);
    return context.page(
      reply,
      status,
      <CentrePage
        site={context.site}
        centre={centre}
        standing={context.standing(centre)}
        bookings={await centreBookings(db, centre.id)}
        formToken={context.token(request, reply)}
        messages={messages}
        reason={form.reason}
        reasonError={form.reasonError}
      />,
    );
  }

  app.get(`${PATHS.home}/centres/:id`, async (request, reply) => {
    const { id } = request.params as { id: string };
    const created = (request.query as Record<string, unknown>).cree === '1';
    return centrePage(request, reply, id, 200, created ? { notice: 'Le centre est créé.' } : {});
  });

  app.post(`${PATHS.home}/centres/:id/suspension`, async (request, reply) => {
    const user = operator(request);
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!UUID.test(id)) return context.refusal(reply, 404, 'Page introuvable', NOT_FOUND);
    if (!context.formOk(request, form)) return centrePage(request, reply, id, 403, { problem: GUARD_REFUSED });
    if (form.action !== 'suspend' && form.action !== 'restore')
      return centrePage(request, reply, id, 400, { problem: 'Choisissez Suspendre ou Rétablir.' });
    const suspend = form.action === 'suspend';
    const reason = text(form.reason);
    if (suspend && (reason.length < 3 || reason.length > 500))
      return centrePage(
        request,
        reply,
        id,
        400,
        {},
        { reason, reasonError: { field: 'reason', message: 'Donnez le motif, en 3 à 500 caractères.' } },
      );
    const centre = await setCentreSuspension(
      db,
      id.toLowerCase(),
      { suspended: suspend, reason },
      undefined,
      userActor(user),
    );
    if (!centre) return context.refusal(reply, 404, 'Page introuvable', NOT_FOUND);
    // This instance serves the change before answering; the others follow within a second.
    await app.catalogue.refresh();
    return centrePage(request, reply, id, 200, {
      notice: suspend
        ? 'Le centre est suspendu : il a quitté toutes les réponses publiques. Ses réservations sont conservées.'
        : 'Le centre est rétabli : il est de nouveau dans les réponses publiques.',
    });
  });
}
