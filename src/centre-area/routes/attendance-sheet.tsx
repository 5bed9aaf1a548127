import { stringify as stringifyCsv } from 'csv-stringify/sync';
import type { FastifyInstance } from 'fastify';
import { neutralise } from '../../admin/import/csv-cells.js';
import { dateIn } from '../../core/clock.js';
import { userActor } from '../../history/actor.js';
import { frenchDate } from '../../web/format.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { attendedAll, bookedPeople, HALF_DAYS, markAttendanceExported } from '../attendance-repository.js';
import { AttendeesPage, reasonText, SheetPage } from '../attendance-sheet-page.js';
import { sessionForPart } from '../session-access.js';

// A byte-order mark, so that Excel reads the file as UTF-8 (accents), and the semicolon it expects in French.
const BOM = '\ufeff';
const DELIMITER = ';';

/** A CSV file for a spreadsheet: every text cell neutralised against formulas (admin/import/csv-cells.ts). */
function csv(header: string[], rows: (string | null)[][]): string {
  return (
    BOM +
    stringifyCsv([header, ...rows.map((r) => r.map((cell) => neutralise(cell ?? '')))], {
      delimiter: DELIMITER,
      record_delimiter: 'windows',
    })
  );
}

const MARK = (m: boolean | null) => (m === null ? '' : m ? 'présent' : 'absent');

/**
 * The attendance sheet of a session (a page to print with a signature box per half-day, and a CSV
 * with the marks), and after the course the list of those present at all four half-days for the
 * attestations (page and CSV; downloading the CSV records the export, which frees the purge).
 * Owner and staff (part `attendance`); another centre's session answers 404.
 */
export function attendanceSheetRoutes(app: FastifyInstance): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  const download = (name: string, body: string) => ({
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex',
    body,
  });

  app.get('/espace-centre/seances/:id/feuille', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const people = await bookedPeople(db, access.session.id);
    return privateHtml(reply, 200, renderPage(<SheetPage site={site} session={access.session} people={people} />));
  });

  app.get('/espace-centre/seances/:id/feuille.csv', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const { session } = access;
    const people = await bookedPeople(db, session.id);
    const { body, ...headers } = download(
      `emargement-${session.day1}-${session.courseNumber.replace(/[^A-Za-z0-9-]/g, '_')}.csv`,
      csv(
        ['Nom', 'Prénom', 'Référence', 'Motif', ...HALF_DAYS.map((h) => h.short)],
        people.map((p) => [p.lastName, p.firstName, p.reference, reasonText(p.reason), ...p.marks.map(MARK)]),
      ),
    );
    return reply.headers(headers).send(body);
  });

  app.get('/espace-centre/seances/:id/attestations', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const { session, today } = access;
    const people = await bookedPeople(db, session.id);
    const attendees = people.filter(attendedAll);
    const exported = session.attendanceExportedAt;
    return privateHtml(
      reply,
      200,
      renderPage(
        <AttendeesPage
          site={site}
          session={session}
          attendees={attendees}
          others={people.length - attendees.length}
          open={today >= session.day2}
          exportedAt={exported ? frenchDate(dateIn(exported, session.centre.timeZone)) : undefined}
        />,
      ),
    );
  });

  app.get('/espace-centre/seances/:id/attestations.csv', { schema: { hide: true } }, async (request, reply) => {
    const access = await sessionForPart(db, request, reply, 'attendance');
    if (!access) return reply;
    const { session, today, user } = access;
    if (today < session.day2)
      return reply
        .code(409)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(`La liste est disponible à partir du ${frenchDate(session.day2)}, le second jour du stage.`);
    const attendees = (await bookedPeople(db, session.id)).filter(attendedAll);
    // Downloading the list lets the purge erase the course's names: only the centre's own click (a
    // link of its pages, or the address typed) records it, never a link followed from another site.
    const site = request.headers['sec-fetch-site'];
    if (site === undefined || site === 'same-origin' || site === 'none')
      await markAttendanceExported(db, session, userActor(user), app.clock.now());
    const { body, ...headers } = download(
      `stagiaires-presents-${session.day1}-${session.courseNumber.replace(/[^A-Za-z0-9-]/g, '_')}.csv`,
      csv(
        ['Nom', 'Prénom', 'Référence', 'Motif', 'Numéro du stage', 'Premier jour', 'Second jour', 'Centre'],
        attendees.map((p) => [
          p.lastName,
          p.firstName,
          p.reference,
          reasonText(p.reason),
          session.courseNumber,
          session.day1,
          session.day2,
          session.centre.name,
        ]),
      ),
    );
    return reply.headers(headers).send(body);
  });
}
