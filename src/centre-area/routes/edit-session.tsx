import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../accounts/users.js';
import { etagOf } from '../../admin/repository/etag.js';
import { getSession, patchSessionIn } from '../../admin/repository/sessions.js';
import type { AdminSession } from '../../admin/response-schemas.js';
import { validateMerged } from '../../admin/routes/sessions.js';
import type { SessionPatch } from '../../admin/schemas.js';
import { UUID } from '../../core/uuid.js';
import { catalogueWrite } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import { userActor } from '../../history/actor.js';
import type { FieldError } from '../../web/field.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { requirePart } from '../access.js';
import { areaUser, GUARD_REFUSED } from '../context.js';
import { type EditSessionForm, EditSessionPage } from '../edit-session-page.js';
import { FIELD_OF, FRENCH } from '../french.js';
import {
  type StoredTrainers,
  saveTrainers,
  TrainersChanged,
  trainersErrors,
  trainersOf,
  trainersTyped,
} from '../trainers.js';

const CANCELLED_SESSION = 'Ce stage est annulé : il ne se modifie plus.';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export const CHANGED_MEANWHILE =
  'Ce stage a changé entre-temps (une place, une réservation ou une autre modification) : vos changements n’ont pas été enregistrés. Voici ses valeurs actuelles ; refaites vos changements puis enregistrez.';

/** The form filled with the session as stored. */
function formFrom(session: AdminSession, trainers: StoredTrainers): EditSessionForm {
  const { version: trainersVersion, ...names } = trainers;
  return {
    ...names,
    trainersVersion,
    price: String(session.priceEuros).replace('.', ','),
    startTime: session.startTime,
    endTime: session.endTime,
    capacity: String(session.capacity),
    declaredOn: session.declaredOn ?? '',
    version: etagOf(session),
  };
}

function typed(body: unknown): EditSessionForm {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (k: string, max = 40) => (typeof b[k] === 'string' ? (b[k] as string).trim().slice(0, max) : '');
  return {
    price: text('price'),
    startTime: text('startTime'),
    endTime: text('endTime'),
    capacity: text('capacity'),
    declaredOn: text('declaredOn'),
    version: text('version', 100),
    trainersVersion: text('trainersVersion', 40),
    ...trainersTyped(b),
  };
}

/** A price as a centre types it: 229, 229,50, 229.5, "229 €". */
export function euros(text: string): number | undefined {
  const s = text.replace(/[\s\u00a0\u202f€]/g, '');
  return /^\d{1,4}([.,]\d{1,2})?$/.test(s) ? Number(s.replace(',', '.')) : undefined;
}

/**
 * The patch the form asks for, or what is wrong with it, field by field. A new group size moves
 * the places left by as much (the places taken elsewhere stay taken), never below 0.
 */
function patchOf(form: EditSessionForm, session: AdminSession): { patch: SessionPatch; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const price = euros(form.price);
  if (price === undefined || price <= 0) errors.push({ field: 'price', message: `Prix : ${FRENCH.priceEuros}.` });
  if (!TIME.test(form.startTime)) errors.push({ field: 'startTime', message: 'Début : une heure, par exemple 08:30.' });
  if (!TIME.test(form.endTime)) errors.push({ field: 'endTime', message: 'Fin : une heure, par exemple 16:30.' });
  else if (TIME.test(form.startTime) && form.endTime <= form.startTime)
    errors.push({ field: 'endTime', message: `Fin : ${FRENCH.endTime}.` });
  const capacity = /^\d{1,2}$/.test(form.capacity) ? Number(form.capacity) : undefined;
  if (capacity === undefined || capacity < 6 || capacity > 20)
    errors.push({ field: 'capacity', message: `Taille du groupe : ${FRENCH.capacity}.` });
  else if (capacity < session.heldHere)
    errors.push({
      field: 'capacity',
      message: `Taille du groupe : au moins ${session.heldHere}, les places tenues par les réservations faites ici (annulez-en d’abord).`,
    });
  if (form.declaredOn !== '' && !DAY.test(form.declaredOn))
    errors.push({ field: 'declaredOn', message: 'Déclaration en préfecture : indiquez une date, ou rien.' });
  const patch: SessionPatch = {
    priceEuros: price ?? 0,
    startTime: form.startTime,
    endTime: form.endTime,
    declaredOn: form.declaredOn === '' ? null : form.declaredOn,
  };
  if (capacity !== undefined && capacity !== session.capacity) {
    const spots = Math.max(
      0,
      Math.min(session.spotsAvailable + capacity - session.capacity, capacity - session.heldHere),
    );
    Object.assign(patch, { capacity, spotsAvailable: spots, heldHere: session.heldHere });
  }
  return { patch, errors };
}

/** What a refused write says, next to the field it concerns. */
function refusalErrors(err: WriteRefused): FieldError[] {
  const issues = err.errors?.length ? err.errors : [{ name: 'body', reason: err.message }];
  return issues.map((issue) => {
    const field = FIELD_OF[issue.name] ?? (issue.name === 'heldHere' ? 'capacity' : issue.name);
    const french =
      err.code === 'places_held_by_reservations'
        ? 'la taille du groupe ne peut pas être inférieure aux places tenues par les réservations faites ici'
        : FRENCH[issue.name];
    return { field, message: french ? `${french}.` : issue.reason };
  });
}

/**
 * GET and POST /espace-centre/seances/:id/modifier: price, times, group size and the prefecture's
 * declaration of one session, through the admin API's PATCH (patchSession: its checks, its
 * history as the user's). The form carries the session's ETag, given as If-Match: a form read
 * before another change is refused with the current values instead of overwriting them.
 */
export function editSessionRoute(app: FastifyInstance): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    session: AdminSession,
    centreName: string,
    form: EditSessionForm,
    errors: FieldError[] = [],
    problem?: string,
  ) =>
    privateHtml(
      reply,
      status,
      renderPage(
        <EditSessionPage
          site={site}
          session={session}
          centreName={centreName}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          form={form}
          errors={errors}
          problem={problem}
        />,
      ),
    );

  /** The session when the user's role may edit it; otherwise the refusal is answered. */
  const reachable = async (request: FastifyRequest, reply: FastifyReply, user: User) => {
    const { id } = request.params as { id: string };
    const session = UUID.test(id) ? await getSession(db, id.toLowerCase()) : undefined;
    const membership = requirePart(request, reply, user, session?.centreId ?? '', 'sessionEdit');
    return session && membership ? { session, membership } : undefined;
  };

  app.get('/espace-centre/seances/:id/modifier', { schema: { hide: true } }, async (request, reply) => {
    const found = await reachable(request, reply, areaUser(request));
    if (!found) return reply;
    const trainers = await trainersOf(db, found.session.id);
    return page(request, reply, 200, found.session, found.membership.centreName, formFrom(found.session, trainers));
  });

  app.post('/espace-centre/seances/:id/modifier', { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const found = await reachable(request, reply, user);
    if (!found) return reply;
    const { session, membership } = found;
    const form = typed(request.body);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    if (app.accounts.guard.check(request, raw._csrf) !== 'ok')
      return page(request, reply, 403, session, membership.centreName, form, [], GUARD_REFUSED);
    const changedMeanwhile = async () => {
      const now = (await getSession(db, session.id)) ?? session;
      const trainers = await trainersOf(db, session.id);
      return page(request, reply, 409, now, membership.centreName, formFrom(now, trainers), [], CHANGED_MEANWHILE);
    };
    if (form.version !== etagOf(session)) return changedMeanwhile();
    if (session.status === 'cancelled')
      return page(request, reply, 409, session, membership.centreName, form, [], CANCELLED_SESSION);
    const { patch, errors } = patchOf(form, session);
    errors.push(...trainersErrors(form));
    if (errors.length > 0) return page(request, reply, 400, session, membership.centreName, form, errors);
    const actor = userActor(user);
    try {
      // The session's fields and its trainers, in one transaction: both or neither.
      await catalogueWrite(db, async (tx) => {
        await patchSessionIn(
          tx,
          session.id,
          patch,
          { centreId: session.centreId },
          form.version,
          validateMerged,
          app.clock,
          actor,
        );
        await saveTrainers(tx, session, form, form.trainersVersion, actor);
      });
    } catch (err) {
      if (err instanceof TrainersChanged) return changedMeanwhile();
      if (!(err instanceof WriteRefused)) throw err;
      if (err.status === 412) return changedMeanwhile();
      return page(request, reply, 400, session, membership.centreName, form, refusalErrors(err));
    }
    await app.catalogue.refresh();
    return reply
      .header('cache-control', 'no-store')
      .redirect(`/espace-centre/seances/${session.id}?fait=modifier`, 303);
  });
}
