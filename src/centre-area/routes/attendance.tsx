import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { AttendancePage, attendancePath, halfDayDate } from '../attendance-page.js';
import { bookedPeople, HALF_DAYS, markHalfDay } from '../attendance-repository.js';
import { type AreaContext, GUARD_REFUSED, type Messages } from '../context.js';
import { type SessionAccess, sessionForPart } from '../session-access.js';

/**
 * GET /espace-centre/seances/:id/presences: the roll call of a session, per half-day; the POST
 * records one half-day's (those checked present, the other people booked absent). Owner and
 * staff (access.tsx, part `attendance`); a half-day opens on its date in the centre's zone.
 */
export function attendanceRoutes(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: SessionAccess,
    status: number,
    messages: Messages = {},
  ) =>
    privateHtml(
      reply,
      status,
      renderPage(
        <AttendancePage
          site={site}
          session={access.session}
          people={await bookedPeople(db, access.session.id)}
          today={access.today}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          {...messages}
        />,
      ),
    );

  app.get('/espace-centre/seances/:id/presences', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const { fait } = request.query as Record<string, unknown>;
    const done = HALF_DAYS.find((h) => String(h.n) === fait);
    return page(request, reply, access, 200, done ? { notice: `Présences enregistrées · ${done.label}.` } : {});
  });

  app.post('/espace-centre/seances/:id/presences', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, access, 403, { problem: GUARD_REFUSED });
    const { session, today, user } = access;
    const halfDay = HALF_DAYS.find((h) => String(h.n) === form.demi_journee);
    if (!halfDay) return page(request, reply, access, 400, { problem: 'Choisissez une demi-journée du stage.' });
    if (session.status === 'cancelled')
      return page(request, reply, access, 409, { problem: 'Ce stage est annulé : il n’y a pas de présences à noter.' });
    const date = halfDayDate(session, halfDay.day);
    if (today < date)
      return page(request, reply, access, 409, {
        problem: `Les présences « ${halfDay.label} » se notent à partir de ce jour-là : rien n’a été enregistré.`,
      });
    const people = await bookedPeople(db, session.id);
    const present = new Set(
      ([] as unknown[]).concat(form.present ?? []).filter((v): v is string => typeof v === 'string'),
    );
    // Only the people booked on this session (not cancelled) can be marked: anything else is refused whole.
    const booked = new Set(people.map((p) => p.id));
    if ([...present].some((id) => !booked.has(id)))
      return page(request, reply, access, 400, {
        problem: 'Une des personnes cochées n’est pas (ou plus) inscrite à ce stage : rien n’a été enregistré.',
      });
    await markHalfDay(db, people, halfDay.n, present, user.id, app.clock.now());
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${attendancePath(session.id)}?fait=${halfDay.n}#demi-journee-${halfDay.n}`, 303);
  });
}
