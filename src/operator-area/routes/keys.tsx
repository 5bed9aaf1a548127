import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  newSubmissionId,
  SUBMISSION_MISSING,
  SubmissionField,
  submissionIdOf,
  writeOnce,
} from '../../accounts/form-submissions.js';
import { type ApiKeyListing, createApiKey, listApiKeys, revokeApiKey } from '../../admin/api-keys.js';
import { ONE_LINE } from '../../admin/schemas.js';
import { findCentre } from '../../cli/find-centre.js';
import { userActor } from '../../history/actor.js';
import { Field, type FieldError } from '../../web/field.js';
import type { SiteInfo } from '../../web/layout.js';
import { GUARD_REFUSED, type OperatorContext, operator } from '../context.js';
import { Csrf, type Messages, OperatorLayout, PATHS, when } from '../layout.js';

interface KeysPageProps {
  site: SiteInfo;
  keys: ApiKeyListing[];
  formToken: string;
  /** The create form's one-time id (accounts/form-submissions.tsx). */
  submissionId: string;
  messages?: Messages | undefined;
  /** The key just created: shown this once. */
  created?: string | undefined;
  errors?: FieldError[] | undefined;
  values?: { name: string; role: string; centre: string } | undefined;
}

function KeysPage(props: KeysPageProps) {
  const errorOf = (field: string) => props.errors?.find((e) => e.field === field);
  const v = props.values ?? { name: '', role: 'partner', centre: '' };
  return (
    <OperatorLayout site={props.site} title="Clés d’API" messages={props.messages}>
      {props.created ? (
        <section class="notice" aria-labelledby="key-title">
          <h2 id="key-title">Votre nouvelle clé</h2>
          <p>Copiez-la maintenant : elle ne sera plus jamais affichée (seule son empreinte est conservée).</p>
          <p>
            <code class="break">{props.created}</code>
          </p>
        </section>
      ) : null}
      <h2>Créer une clé</h2>
      <form method="post" action={PATHS.keys} class="area-form">
        <Csrf token={props.formToken} />
        <SubmissionField id={props.submissionId} />
        <Field
          name="name"
          label="Nom (qui l’utilise)"
          error={errorOf('name')}
          input={{ type: 'text', value: v.name, required: true, maxLength: 100 }}
        />
        <fieldset>
          <legend>Rôle</legend>
          <div class="check">
            <input type="radio" id="role-partner" name="role" value="partner" checked={v.role !== 'admin'} />
            <label for="role-partner">Partenaire : les stages d’un centre</label>
          </div>
          <div class="check">
            <input type="radio" id="role-admin" name="role" value="admin" checked={v.role === 'admin'} />
            <label for="role-admin">Exploitant : tout le catalogue</label>
          </div>
        </fieldset>
        <Field
          name="centre"
          label="Centre (identifiant d’adresse ou id), pour une clé partenaire"
          error={errorOf('centre')}
          input={{ type: 'text', value: v.centre }}
        />
        <button type="submit">Créer la clé</button>
      </form>
      <h2>Clés existantes</h2>
      {props.keys.length === 0 ? (
        <p>Aucune clé.</p>
      ) : (
        <ul class="area-sessions">
          {props.keys.map((k) => (
            <li>
              <strong>{k.name}</strong> · {k.role === 'admin' ? 'exploitant' : 'partenaire'} · sk_{k.id}_… · créée le{' '}
              {when(k.createdAt)}
              {k.revokedAt ? (
                ` · révoquée le ${when(k.revokedAt)}`
              ) : (
                <form method="post" action={PATHS.revokeKey(k.id)} class="inline">
                  <Csrf token={props.formToken} />{' '}
                  <button type="submit" class="danger" aria-label={`Révoquer la clé ${k.name}`}>
                    Révoquer
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
    </OperatorLayout>
  );
}

/** Said when the create form is sent again (`?deja=1`): its key is not shown again. */
const KEY_ALREADY_CREATED =
  'Cette clé était déjà créée : le formulaire a été envoyé deux fois, aucune autre clé n’a été créée. Elle figure ci-dessous, mais sa valeur n’est affichée qu’une fois, à sa création : si vous ne l’avez pas copiée, révoquez-la et créez-en une autre.';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** API keys: the list, a new one (shown once, as `apikey:create` does), and revoking one (as `apikey:revoke`). */
export function keysRoutes(app: FastifyInstance, context: OperatorContext): void {
  const db = app.database.db;
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: Partial<KeysPageProps> = {},
  ) =>
    context.page(
      reply,
      status,
      <KeysPage
        site={context.site}
        keys={await listApiKeys(db)}
        formToken={context.token(request, reply)}
        submissionId={newSubmissionId()}
        {...extra}
      />,
    );

  app.get(PATHS.keys, async (request, reply) =>
    page(request, reply, 200, {
      messages: (request.query as Record<string, unknown>).deja === '1' ? { notice: KEY_ALREADY_CREATED } : undefined,
    }),
  );

  app.post(PATHS.keys, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const values = {
      name: text(form.name),
      role: form.role === 'admin' ? 'admin' : 'partner',
      centre: text(form.centre),
    };
    if (!context.formOk(request, form))
      return page(request, reply, 403, { messages: { problem: GUARD_REFUSED }, values });
    const submission = submissionIdOf(form);
    if (!submission) return page(request, reply, 400, { messages: { problem: SUBMISSION_MISSING }, values });
    const errors: FieldError[] = [];
    if (values.name.length < 1 || values.name.length > 100 || !ONE_LINE.test(values.name))
      errors.push({ field: 'name', message: 'Donnez un nom de 1 à 100 caractères, sur une ligne.' });
    let centreId: string | null = null;
    if (values.role === 'partner') {
      const centre = values.centre ? await findCentre(app.database, values.centre) : undefined;
      if (!centre) errors.push({ field: 'centre', message: 'Une clé partenaire nomme un centre existant.' });
      centreId = centre?.id ?? null;
    }
    if (errors.length > 0) return page(request, reply, 400, { errors, values });
    const once = await writeOnce(db, { id: submission, userId: operator(request).id, at: app.clock.now() }, (tx) =>
      createApiKey(
        tx,
        { name: values.name, role: values.role as 'admin' | 'partner', centreId },
        userActor(operator(request)),
      ),
    );
    if (!once.written) return reply.header('cache-control', 'no-store').redirect(`${PATHS.keys}?deja=1`, 303);
    const { key } = once.value;
    return page(request, reply, 201, { created: key, messages: { notice: 'La clé est créée.' } });
  });

  app.post(`${PATHS.keys}/:id/revocation`, async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, 403, { messages: { problem: GUARD_REFUSED } });
    if (!(await revokeApiKey(db, id, app.clock.now(), {}, userActor(operator(request)))))
      return page(request, reply, 404, { messages: { problem: 'Aucune clé active n’a cet identifiant.' } });
    return page(request, reply, 200, {
      messages: { notice: 'La clé est révoquée : elle ne sert plus, sur aucune instance.' },
    });
  });
}
