import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AlreadySubmitted,
  newSubmissionId,
  SUBMISSION_MISSING,
  spendSubmission,
  submissionIdOf,
} from '../../accounts/form-submissions.js';
import type { User } from '../../accounts/users.js';
import { type ImportRecord, ImportRefused } from '../../admin/import/records.js';
import { importBatch } from '../../admin/import/write.js';
import { FIRST_YEAR, LAST_YEAR } from '../../admin/schemas.js';
import { addDays, dateIn, isDayBetween } from '../../core/clock.js';
import { userActor } from '../../history/actor.js';
import type { FieldError } from '../../web/field.js';
import { frenchDate } from '../../web/format.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { areaUser, GUARD_REFUSED } from '../context.js';
import { FIELD_OF, FRENCH } from '../french.js';
import { EMPTY_FORM, type NewSessionForm, NewSessionPage } from '../new-session-page.js';
import { saveTrainers, TRAINER_FIELDS, trainersErrors, trainersTyped } from '../trainers.js';

const PATH = '/espace-centre/seances/nouvelle';
const CENTRE_OFF_SALE =
  'Ce centre ne peut pas publier de stage pour l’instant : il est suspendu, ou son agrément a expiré. Contactez l’équipe de la plateforme.';
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

function formOf(body: unknown): NewSessionForm {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (k: keyof NewSessionForm) => (typeof b[k] === 'string' ? (b[k] as string).trim().slice(0, 40) : '');
  return {
    centreId: text('centreId'),
    day1: text('day1'),
    repeat: text('repeat') || '1',
    every: text('every') || '1',
    startTime: text('startTime'),
    endTime: text('endTime'),
    price: text('price'),
    capacity: text('capacity'),
    spots: text('spots'),
    declaredOn: text('declaredOn'),
    ...trainersTyped(b),
  };
}

const whole = (s: string, min: number, max: number) => {
  const n = /^\d+$/.test(s) ? Number(s) : Number.NaN;
  return n >= min && n <= max ? n : undefined;
};

/**
 * GET and POST /espace-centre/seances/nouvelle: a session, or the same one on several dates (every
 * N weeks), written as one all-or-nothing import (admin/import/write.ts): the API's checks apply to
 * each date, and none is created if one is refused.
 */
export function newSessionRoute(app: FastifyInstance): void {
  const site = siteInfo(app.config);
  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    status: number,
    form: NewSessionForm,
    errors: FieldError[] = [],
    problem?: string,
  ) =>
    privateHtml(
      reply,
      status,
      renderPage(
        <NewSessionPage
          site={site}
          memberships={user.memberships}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          submissionId={newSubmissionId()}
          form={form}
          errors={errors}
          problem={problem}
        />,
      ),
    );

  app.get(PATH, { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    return page(request, reply, user, 200, { ...EMPTY_FORM, centreId: user.memberships[0]?.centreId ?? '' });
  });

  app.post(PATH, { schema: { hide: true } }, async (request, reply) => {
    const user = areaUser(request);
    const form = formOf(request.body);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    if (app.accounts.guard.check(request, raw._csrf) !== 'ok')
      return page(request, reply, user, 403, form, [], GUARD_REFUSED);
    const submission = submissionIdOf(raw);
    if (!submission) return page(request, reply, user, 400, form, [], SUBMISSION_MISSING);
    const membership = user.memberships.find((m) => m.centreId === form.centreId);
    if (!membership) return page(request, reply, user, 404, form, [], 'Ce centre n’est pas l’un des vôtres.');
    // The public catalogue holds the centres that may sell: a suspended centre, or one whose approval
    // has ended, is not in it.
    const centre = app.catalogue.snapshot.centresById.get(membership.centreId);
    if (!centre) return page(request, reply, user, 409, form, [], CENTRE_OFF_SALE);

    const errors: FieldError[] = [];
    const today = dateIn(app.clock.now(), centre.timeZone);
    if (!isDayBetween(form.day1, FIRST_YEAR, LAST_YEAR))
      errors.push({ field: 'day1', message: 'Premier jour : indiquez une date.' });
    else if (form.day1 <= today) errors.push({ field: 'day1', message: 'Premier jour : choisissez une date à venir.' });
    const repeat = whole(form.repeat, 1, 12);
    if (repeat === undefined) errors.push({ field: 'repeat', message: 'Nombre de dates : de 1 à 12.' });
    const every = whole(form.every, 1, 8);
    if (every === undefined) errors.push({ field: 'every', message: 'Intervalle : de 1 à 8 semaines.' });
    if (!TIME.test(form.startTime))
      errors.push({ field: 'startTime', message: 'Début : une heure, par exemple 08:30.' });
    if (!TIME.test(form.endTime)) errors.push({ field: 'endTime', message: 'Fin : une heure, par exemple 16:30.' });
    const price = /^\d{1,4}([.,]\d{1,2})?$/.test(form.price) ? Number(form.price.replace(',', '.')) : undefined;
    if (price === undefined) errors.push({ field: 'price', message: `Prix : ${FRENCH.priceEuros}.` });
    const capacity = whole(form.capacity, 1, 99);
    if (capacity === undefined) errors.push({ field: 'capacity', message: `Taille du groupe : ${FRENCH.capacity}.` });
    const spots = form.spots === '' ? capacity : whole(form.spots, 0, 99);
    if (spots === undefined && capacity !== undefined)
      errors.push({ field: 'spots', message: `Places libres : ${FRENCH.spotsAvailable}.` });
    if (form.declaredOn !== '' && !isDayBetween(form.declaredOn, FIRST_YEAR, LAST_YEAR))
      errors.push({ field: 'declaredOn', message: 'Déclaration en préfecture : indiquez une date, ou rien.' });
    errors.push(...trainersErrors(form));
    if (errors.length > 0) return page(request, reply, user, 400, form, errors);

    const days = Array.from({ length: repeat as number }, (_, k) => addDays(form.day1, 7 * (every as number) * k));
    const records: ImportRecord[] = days.map((day, index) => {
      const id = randomUUID();
      // The centre's approval, the day, and a few characters of the id: two groups may meet the same day.
      const courseNumber = `${centre.record.agrementNumber}-${day.replaceAll('-', '')}-${id.slice(0, 4).toUpperCase()}`;
      return {
        index,
        type: 'session',
        data: {
          id,
          centreId: centre.record.id,
          courseNumber,
          day1: day,
          startTime: form.startTime,
          endTime: form.endTime,
          priceEuros: price,
          capacity,
          spotsAvailable: spots,
          ...(form.declaredOn ? { declaredOn: form.declaredOn } : {}),
        },
      };
    });
    try {
      await importBatch(
        app.database.db,
        records,
        { centreId: centre.record.id },
        {
          dryRun: false,
          clock: app.clock,
          actor: userActor(user),
          // The form's id, spent with the sessions: the same form sent again creates none.
          first: (tx) => spendSubmission(tx, { id: submission, userId: user.id, at: app.clock.now() }),
        },
      );
    } catch (err) {
      if (err instanceof AlreadySubmitted)
        return reply.header('cache-control', 'no-store').redirect('/espace-centre?deja=1', 303);
      if (!(err instanceof ImportRefused)) throw err;
      const refused = err.errors.map((issue) => ({
        field: FIELD_OF[issue.name] ?? issue.name,
        message: `Stage du ${frenchDate(days[issue.index ?? 0] ?? form.day1)} : ${FRENCH[issue.name] ?? issue.reason}.`,
      }));
      return page(request, reply, user, 422, form, refused);
    }
    // The trainers, private, beside the sessions the import created.
    if (TRAINER_FIELDS.some((f) => form[f] !== ''))
      await app.database.db.transaction(async (tx) => {
        for (const r of records)
          await saveTrainers(
            tx,
            { id: r.data.id as string, centreId: centre.record.id },
            form,
            undefined,
            userActor(user),
          );
      });
    await app.catalogue.refresh();
    return reply.header('cache-control', 'no-store').redirect(`/espace-centre?cree=${days.length}`, 303);
  });
}
