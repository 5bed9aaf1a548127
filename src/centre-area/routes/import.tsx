import { createHash, randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rowsById } from '../../admin/import/diff.js';
import { parseImport } from '../../admin/import/parse.js';
import { type ImportRecord, ImportRefused, type ImportResult } from '../../admin/import/records.js';
import { importBatch } from '../../admin/import/write.js';
import type { SessionRow } from '../../admin/repository/views.js';
import { areaImportDrafts, stageSessions } from '../../db/schema.js';
import { userActor } from '../../history/actor.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { requirePart } from '../access.js';
import { areaUser, GUARD_REFUSED } from '../context.js';
import { type AreaImportFormat, FORMATS, ImportPage, type ImportPreview } from '../import-page.js';
import { readUpload, type Upload, uploadFormat, uploadLimits, utf8Text } from '../upload.js';

/** How long a preview may wait for its confirmation. */
const DRAFT_MINUTES = 30;

const CHANGED_MEANWHILE =
  'Les stages de ce fichier ont changé depuis l’aperçu (une place, une réservation, une modification) : rien n’a été écrit. Voici le nouvel aperçu ; confirmez à nouveau si il vous convient.';
const DRAFT_GONE =
  'Cet aperçu a expiré ou a déjà été appliqué : choisissez ou collez le fichier à nouveau pour un nouvel aperçu.';

/** What the page says of a file it could not take; nothing was stored. */
const uploadProblems = (maxMb: number) => ({
  tooBig: `Ce fichier dépasse ${maxMb} Mo, le plus qu’un import accepte : rien n’a été importé. Découpez-le en plusieurs fichiers.`,
  files: 'Envoyez un seul fichier à la fois : rien n’a été importé.',
  fields: 'Le formulaire envoyé a trop de champs ou des champs trop longs : rien n’a été importé.',
  unreadable: 'Le fichier n’a pas pu être reçu en entier : rien n’a été importé. Choisissez-le à nouveau.',
  noFile: 'Choisissez un fichier.',
  empty: 'Ce fichier est vide.',
  format:
    'Le nom de ce fichier ne dit pas son format (.csv, .json ou .ndjson) : choisissez le format dans la liste, puis le fichier à nouveau.',
  encoding:
    'Ce fichier n’est pas encodé en UTF-8, l’encodage attendu (il l’est sans doute en Windows-1252 ou ISO-8859-1) : ses accents seraient faussés, rien n’a été importé. Enregistrez-le en UTF-8 (dans Excel : « CSV UTF-8 (délimité par des virgules) »), puis choisissez-le à nouveau.',
});

type PageProps = Omit<
  Parameters<typeof ImportPage>[0],
  'site' | 'centreId' | 'centreName' | 'formToken' | 'maxRecords' | 'maxMb'
>;

const formatOf = (value: unknown): AreaImportFormat =>
  typeof value === 'string' && value in FORMATS ? (value as AreaImportFormat) : 'csv';

/** The dry run's counts and the versions of the stored sessions the file names: what a confirmation must find again. */
function previewKey(result: ImportResult, stored: Map<string, SessionRow>): string {
  const versions = [...stored.values()].map((r) => `${r.id}:${r.updatedAt.toISOString()}`).sort();
  return createHash('sha256')
    .update(JSON.stringify({ sessions: result.sessions, centres: result.centres, versions }))
    .digest('base64url');
}

/**
 * GET and POST /espace-centre/centres/:centreId/import, and POST …/import/confirmer: a CSV, JSON or
 * NDJSON file, chosen on the phone (a multipart form) or its content pasted, run through the admin import's dry run for this centre (a partner
 * key's scope: its own sessions only) and shown as a preview; its confirmation applies exactly the
 * previewed content, kept server-side (area_import_drafts, bound to the user and the centre, 30
 * minutes), and is refused with a new preview if the sessions it changes changed meanwhile.
 */
export function importRoute(app: FastifyInstance): void {
  const db = app.database.db;
  const site = siteInfo(app.config);
  const limits = { maxRecords: app.config.importMaxRecords, maxBytes: app.config.importMaxBytes };

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    centre: { centreId: string; centreName: string },
    props: PageProps,
  ) =>
    privateHtml(
      reply,
      status,
      renderPage(
        <ImportPage
          site={site}
          centreId={centre.centreId}
          centreName={centre.centreName}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          maxRecords={limits.maxRecords}
          maxMb={Math.round(limits.maxBytes / (1024 * 1024))}
          {...props}
        />,
      ),
    );

  const member = (request: FastifyRequest, reply: FastifyReply) => {
    const user = areaUser(request);
    const { centreId } = request.params as { centreId: string };
    return { user, membership: requirePart(request, reply, user, centreId, 'import') };
  };

  /** The dry run of a content for this centre, and what a confirmation must find again. */
  const dryRun = async (
    content: string,
    format: AreaImportFormat,
    centreId: string,
    actor: ReturnType<typeof userActor>,
  ) => {
    const records: ImportRecord[] = await parseImport(
      (async function* () {
        yield content;
      })(),
      format,
      limits,
    );
    const result = await importBatch(db, records, { centreId }, { dryRun: true, clock: app.clock, actor });
    const ids = records
      .filter((r) => r.type === 'session' && typeof r.data.id === 'string')
      .map((r) => r.data.id as string);
    const stored = await rowsById<SessionRow>(db, stageSessions, ids);
    return { records, result, key: previewKey(result, stored) };
  };

  const refused = (err: ImportRefused): Pick<PageProps, 'problem' | 'issues' | 'issueCount'> => ({
    problem: err.message,
    issues: err.errors,
    issueCount: err.errorCount ?? err.errors?.length,
  });

  /** Stores a preview for its confirmation and shows it. */
  const showPreview = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    membership: { centreId: string; centreName: string },
    userId: string,
    run: { result: ImportResult; key: string },
    format: AreaImportFormat,
    content: string,
    problem?: string,
    shown: Pick<PageProps, 'content' | 'problemField' | 'uploadFormat' | 'fileName'> = { content },
  ) => {
    const draftId = randomBytes(24).toString('base64url');
    const now = app.clock.now();
    await db.delete(areaImportDrafts).where(lt(areaImportDrafts.expiresAt, now));
    await db.insert(areaImportDrafts).values({
      id: draftId,
      userId,
      centreId: membership.centreId,
      format,
      content,
      preview: run.key,
      expiresAt: new Date(now.getTime() + DRAFT_MINUTES * 60_000),
    });
    const preview: ImportPreview = { draftId, sessions: run.result.sessions };
    return page(request, reply, status, membership, {
      format,
      ...shown,
      preview,
      ...(problem ? { notice: problem } : {}),
    });
  };

  app.get('/espace-centre/centres/:centreId/import', { schema: { hide: true } }, async (request, reply) => {
    const { membership } = member(request, reply);
    if (!membership) return reply;
    const query = request.query as Record<string, unknown>;
    const count = (v: unknown) => (typeof v === 'string' && /^\d{1,7}$/.test(v) ? Number(v) : undefined);
    const created = count(query.crees);
    const updated = count(query.modifies);
    return page(request, reply, 200, membership, {
      format: 'csv',
      content: '',
      ...(created !== undefined && updated !== undefined
        ? { notice: `Import appliqué : ${created} stage(s) créé(s), ${updated} modifié(s), déjà en ligne partout.` }
        : {}),
    });
  });

  /** The dry run's preview of a content, or the page saying why the import refused it. */
  const previewOf = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ReturnType<typeof areaUser>,
    membership: { centreId: string; centreName: string },
    format: AreaImportFormat,
    content: string,
    shown: Pick<PageProps, 'content' | 'problemField' | 'uploadFormat' | 'fileName'>,
  ) => {
    try {
      const run = await dryRun(content, format, membership.centreId, userActor(user));
      return await showPreview(request, reply, 200, membership, user.id, run, format, content, undefined, shown);
    } catch (err) {
      if (!(err instanceof ImportRefused)) throw err;
      const { fileName: _shownOnlyWithAPreview, ...kept } = shown;
      return page(request, reply, err.status === 413 ? 413 : 400, membership, { format, ...kept, ...refused(err) });
    }
  };

  const problems = uploadProblems(Math.round(limits.maxBytes / (1024 * 1024)));

  /** A file chosen in the page's multipart form: read whole (one file, IMPORT_MAX_MB), checked, then previewed. */
  const fromUpload = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: ReturnType<typeof areaUser>,
    membership: { centreId: string; centreName: string },
  ) => {
    const upload: Upload = await readUpload(request);
    const fields = upload.kind === 'read' ? upload.fields : {};
    const chosen =
      typeof fields.format === 'string' && fields.format in FORMATS ? (fields.format as AreaImportFormat) : '';
    const refuse = (status: number, problem: string) =>
      page(request, reply, status, membership, {
        format: 'csv',
        content: '',
        uploadFormat: chosen,
        problemField: 'fichier',
        problem,
      });
    if (upload.kind === 'refused') return refuse(upload.status, problems[upload.reason]);
    // The anti-forgery token, read from the form's fields, before anything is kept.
    if (app.accounts.guard.check(request, fields._csrf) !== 'ok') return refuse(403, GUARD_REFUSED);
    const { file } = upload;
    if (!file || (file.name === '' && file.bytes.length === 0 && !file.tooBig)) return refuse(400, problems.noFile);
    if (file.tooBig) return refuse(413, problems.tooBig);
    if (file.bytes.length === 0) return refuse(400, problems.empty);
    const format = uploadFormat(chosen || undefined, file.name, file.type);
    if (!format) return refuse(400, problems.format);
    const content = utf8Text(file.bytes);
    if (content === undefined) return refuse(400, problems.encoding);
    if (content.trim() === '') return refuse(400, problems.empty);
    return previewOf(request, reply, user, membership, format, content, {
      content: '',
      problemField: 'fichier',
      uploadFormat: chosen,
      fileName: file.name,
    });
  };

  // The import's POST in a scope of its own: only it takes multipart bodies (@fastify/multipart, its
  // limits: one file of at most IMPORT_MAX_MB, a few short fields); the area's other forms and the
  // admin API's import (its own streaming parsers) are untouched.
  app.register(async (uploads: FastifyInstance) => {
    await uploads.register(multipart, { limits: uploadLimits(limits.maxBytes), throwFileSizeLimit: false });
    uploads.post(
      '/espace-centre/centres/:centreId/import',
      // A form's encoding may triple a file's size; the content itself is held to IMPORT_MAX_MB below.
      { schema: { hide: true }, bodyLimit: limits.maxBytes * 3 + 64 * 1024 },
      async (request, reply) => {
        const { user, membership } = member(request, reply);
        if (!membership) return reply;
        if (request.isMultipart()) return fromUpload(request, reply, user, membership);
        const form = (request.body ?? {}) as Record<string, unknown>;
        const format = formatOf(form.format);
        const content = typeof form.contenu === 'string' ? form.contenu : '';
        if (app.accounts.guard.check(request, form._csrf) !== 'ok')
          return page(request, reply, 403, membership, { format, content, problem: GUARD_REFUSED });
        if (content.trim() === '')
          return page(request, reply, 400, membership, { format, content, problem: 'Collez le contenu du fichier.' });
        return previewOf(request, reply, user, membership, format, content, { content });
      },
    );
  });

  app.post('/espace-centre/centres/:centreId/import/confirmer', { schema: { hide: true } }, async (request, reply) => {
    const { user, membership } = member(request, reply);
    if (!membership) return reply;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (app.accounts.guard.check(request, form._csrf) !== 'ok')
      return page(request, reply, 403, membership, { format: 'csv', content: '', problem: GUARD_REFUSED });
    const draftId = typeof form.brouillon === 'string' ? form.brouillon : '';
    const [draft] = await db
      .select()
      .from(areaImportDrafts)
      .where(
        and(
          eq(areaImportDrafts.id, draftId),
          eq(areaImportDrafts.userId, user.id),
          eq(areaImportDrafts.centreId, membership.centreId),
          gt(areaImportDrafts.expiresAt, app.clock.now()),
        ),
      );
    if (!draft) return page(request, reply, 410, membership, { format: 'csv', content: '', problem: DRAFT_GONE });
    const format = formatOf(draft.format);
    const actor = userActor(user);
    await db.delete(areaImportDrafts).where(eq(areaImportDrafts.id, draft.id));
    let result: ImportResult;
    try {
      const run = await dryRun(draft.content, format, membership.centreId, actor);
      if (run.key !== draft.preview)
        return showPreview(request, reply, 409, membership, user.id, run, format, draft.content, CHANGED_MEANWHILE);
      result = await importBatch(
        db,
        run.records,
        { centreId: membership.centreId },
        {
          dryRun: false,
          clock: app.clock,
          actor,
        },
      );
    } catch (err) {
      if (!(err instanceof ImportRefused)) throw err;
      return page(request, reply, 409, membership, { format, content: draft.content, ...refused(err) });
    }
    await app.catalogue.refresh();
    return reply
      .header('cache-control', 'no-store')
      .redirect(
        `/espace-centre/centres/${membership.centreId}/import?crees=${result.sessions.created}&modifies=${result.sessions.updated}`,
        303,
      );
  });
}
