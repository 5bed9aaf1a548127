import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Membership } from '../../accounts/users.js';
import { getCentre, putCentre } from '../../admin/repository/centres.js';
import { etagOf } from '../../admin/repository/etag.js';
import type { AdminCentre } from '../../admin/response-schemas.js';
import { CANCELLATION_TERMS_MAX, CentreInputSchema } from '../../admin/schemas.js';
import { WriteRefused } from '../../db/write-refused.js';
import { userActor } from '../../history/actor.js';
import type { FieldError } from '../../web/field.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { requirePart } from '../access.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import {
  DetailsPage,
  type DetailsPageProps,
  type DetailsValues,
  detailsPath,
  detailsValuesOf,
} from '../details-page.js';

/** The fields the owner writes; the others (slug, name, department, approval number) stay the operator's. */
const EDITABLE = ['address', 'postalCode', 'city', 'lat', 'lng', 'email', 'phone', 'cancellationTerms'] as const;

const MESSAGES: Record<(typeof EDITABLE)[number], string> = {
  address: 'Saisissez le numéro et la rue, sur une ligne (300 caractères au plus).',
  postalCode: 'Le code postal a 5 chiffres, par exemple 69003.',
  city: 'Saisissez la ville, sur une ligne (100 caractères au plus).',
  lat: 'Saisissez la latitude en degrés décimaux, par exemple 45,7578.',
  lng: 'Saisissez la longitude en degrés décimaux, par exemple 4,8320.',
  email: 'Saisissez une adresse e-mail complète, par exemple contact@centre.fr, ou laissez vide.',
  phone: 'Saisissez un numéro de téléphone, par exemple 04 72 00 00 00, ou laissez vide.',
  cancellationTerms: `Écrivez vos conditions en ${CANCELLATION_TERMS_MAX} caractères au plus (retours à la ligne permis), ou laissez vide.`,
};

const STALE =
  'Les coordonnées ont été modifiées entre-temps (par un autre membre ou par l’API) : voici les valeurs actuelles ; rien n’a été enregistré.';

/** A decimal number as typed on a phone (a comma or a point), or the text itself for the schema to refuse. */
function decimal(text: string): number | string {
  const n = Number(text.trim().replace(',', '.'));
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

function typed(form: Record<string, unknown>): DetailsValues {
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  return {
    address: field('address'),
    postalCode: field('postalCode').trim(),
    city: field('city'),
    lat: field('lat'),
    lng: field('lng'),
    email: field('email').trim(),
    phone: field('phone').trim(),
    cancellationTerms: field('cancellationTerms'),
  };
}

/** The API's checks on the whole centre with the owner's fields put in; each refusal in French on its field. */
function validate(centre: AdminCentre, values: DetailsValues) {
  const parsed = CentreInputSchema.safeParse({
    slug: centre.slug,
    name: centre.name,
    deptCode: centre.deptCode,
    agrementNumber: centre.agrementNumber,
    address: values.address,
    postalCode: values.postalCode,
    city: values.city,
    lat: decimal(values.lat),
    lng: decimal(values.lng),
    email: values.email,
    phone: values.phone,
    cancellationTerms: values.cancellationTerms,
  });
  if (parsed.success) return { ok: true as const, input: parsed.data };
  const errors: FieldError[] = [];
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as (typeof EDITABLE)[number];
    if (!EDITABLE.includes(field) || errors.some((e) => e.field === field)) continue;
    let message = MESSAGES[field];
    if (field === 'postalCode' && /^\d{5}$/.test(values.postalCode))
      message = `Ce code postal ne dessert aucune commune du département ${centre.deptCode}, celui du centre (il figure dans son numéro d’agrément).`;
    if ((field === 'lat' || field === 'lng') && typeof decimal(values[field]) === 'number')
      message = `Ce point est hors de la zone du département ${centre.deptCode} : vérifiez la ${field === 'lat' ? 'latitude' : 'longitude'}.`;
    errors.push({ field, message });
  }
  // Fields the owner cannot change cannot be at fault: the stored centre passed the same checks.
  return { ok: false as const, errors };
}

/**
 * The centre's details, its owner's alone (access.tsx): contact email and phone, address, cancellation terms. Saved
 * through the admin API's centre write (putCentre, the same schema and checks as PUT
 * /api/admin/centres/{id}), conditional on the version the form was read from, recorded in the
 * history as the user's, and served by the catalogue at once.
 */
export function detailsRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    membership: Membership,
    centre: AdminCentre,
    status: number,
    extra: Partial<DetailsPageProps> = {},
  ) {
    return privateHtml(
      reply,
      status,
      renderPage(
        <DetailsPage
          site={site}
          membership={membership}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          centre={centre}
          version={etagOf(centre)}
          values={detailsValuesOf(centre)}
          {...extra}
        />,
      ),
    );
  }

  async function ownersCentre(request: FastifyRequest, reply: FastifyReply) {
    const { centreId } = request.params as { centreId: string };
    const membership = requirePart(request, reply, areaUser(request), centreId, 'details');
    if (!membership) return undefined;
    const centre = await getCentre(db, membership.centreId);
    if (!centre) throw new Error('a member’s centre is missing');
    return { membership, centre };
  }

  app.get('/espace-centre/centres/:centreId', { schema: { hide: true } }, async (request, reply) => {
    const found = await ownersCentre(request, reply);
    if (!found) return reply;
    const notice =
      (request.query as Record<string, unknown>).enregistre === '1' ? 'Coordonnées enregistrées.' : undefined;
    return page(request, reply, found.membership, found.centre, 200, { notice });
  });

  app.post('/espace-centre/centres/:centreId', { schema: { hide: true } }, async (request, reply) => {
    const found = await ownersCentre(request, reply);
    if (!found) return reply;
    const { membership, centre } = found;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form))
      return page(request, reply, membership, centre, 403, { problem: GUARD_REFUSED });
    // The version the form was read at: without it the write could undo a change made meanwhile.
    if (typeof form.version !== 'string' || form.version === '')
      return page(request, reply, membership, centre, 400, {
        problem: 'Ce formulaire est incomplet : rechargez la page et recommencez ; rien n’a été enregistré.',
      });
    const values = typed(form);
    const checked = validate(centre, values);
    if (!checked.ok) return page(request, reply, membership, centre, 400, { values, errors: checked.errors });
    const user = areaUser(request);
    try {
      await putCentre(db, centre.id, checked.input, form.version, userActor(user));
    } catch (err) {
      if (err instanceof WriteRefused && err.status === 412) {
        const current = (await getCentre(db, centre.id)) as AdminCentre;
        return page(request, reply, membership, current, 409, { problem: STALE });
      }
      throw err;
    }
    await app.catalogue.refresh();
    request.log.info({ centre: centre.id, user: user.id }, 'centre area: details saved');
    return reply.header('cache-control', 'no-store').redirect(`${detailsPath(centre.id)}?enregistre=1`, 303);
  });
}
