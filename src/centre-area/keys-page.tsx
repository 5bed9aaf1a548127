import { SubmissionField } from '../accounts/form-submissions.js';
import type { Membership } from '../accounts/users.js';
import type { ApiKeyListing } from '../admin/api-keys.js';
import { METROPOLITAN_TIME_ZONE } from '../core/clock.js';
import { Field, type FieldError } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';

export const keysPath = (centreId: string) => `/espace-centre/centres/${centreId}/cles`;

/** Said when the create form is sent again (`?deja=1`): its key is not shown again. */
export const KEY_ALREADY_CREATED =
  'Cette clé était déjà créée : le formulaire a été envoyé deux fois, aucune autre clé n’a été créée. Elle figure ci-dessous, mais sa valeur n’est affichée qu’une fois, à sa création : si vous ne l’avez pas copiée, révoquez-la et créez-en une autre.';

const instant = new Intl.DateTimeFormat('fr-FR', {
  timeZone: METROPOLITAN_TIME_ZONE,
  dateStyle: 'short',
  timeStyle: 'short',
});

export interface KeysPageProps {
  site: SiteInfo;
  membership: Membership;
  formToken: string;
  /** The create form's one-time id (accounts/form-submissions.tsx). */
  submissionId: string;
  keys: ApiKeyListing[];
  /** The key just created: shown this once. */
  created?: { id: string; key: string } | undefined;
  notice?: string | undefined;
  problem?: string | undefined;
  errors?: FieldError[] | undefined;
  /** The name typed, shown again with its error. */
  name?: string | undefined;
}

/** The centre's API keys (its owner's): each key's name, beginning and dates; create one (shown once), revoke one. */
export function KeysPage(props: KeysPageProps) {
  const { membership: m, formToken } = props;
  const base = keysPath(m.centreId);
  const error = props.errors?.find((e) => e.field === 'name');
  return (
    <Layout
      site={props.site}
      title={`Clés d’API · ${m.centreName}`}
      description="Les clés d’API de votre centre"
      noindex
    >
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Clés d’API de {m.centreName}</h1>
      <Notices problem={props.problem} notice={props.notice} />
      <p>
        Une clé permet à votre logiciel de tenir à jour les stages et les places de ce centre, et seulement de ce
        centre, par l’API partenaire (<code>Authorization: Bearer sk_…</code>). Voir la{' '}
        <a href="/docs">documentation de l’API</a>.
      </p>
      {props.created ? (
        <section class="notice" aria-labelledby="key-title">
          <h2 id="key-title">Clé créée</h2>
          <p>
            <code id="key" class="break">
              {props.created.key}
            </code>
          </p>
          <p>
            <strong>Copiez-la maintenant : elle ne sera plus jamais affichée.</strong> Seule son empreinte est gardée.
            Perdue, révoquez-la et créez-en une autre.
          </p>
        </section>
      ) : null}
      <h2>Vos clés</h2>
      {props.keys.length === 0 ? (
        <p>Aucune clé pour l’instant.</p>
      ) : (
        <ul class="area-sessions">
          {props.keys.map((k) => (
            <li id={`cle-${k.id}`} class="session">
              <h3 class="break">{k.name}</h3>
              <p>
                <code>sk_{k.id}_…</code> · créée le {instant.format(k.createdAt)}
                {k.revokedAt ? ` · révoquée le ${instant.format(k.revokedAt)} : elle ne sert plus.` : ' · active.'}
              </p>
              {k.revokedAt ? null : (
                <form method="post" action={`${base}/${k.id}/revoquer`} class="inline">
                  <input type="hidden" name="_csrf" value={formToken} />
                  <button type="submit" class="danger" aria-label={`Révoquer la clé ${k.name}`}>
                    Révoquer
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
      <h2 id="creer">Créer une clé</h2>
      {error ? (
        <div class="errors" role="alert">
          <p>Aucune clé n’a été créée : corrigez ce qui est signalé.</p>
        </div>
      ) : null}
      <form method="post" action={base} class="area-form">
        <input type="hidden" name="_csrf" value={formToken} />
        <SubmissionField id={props.submissionId} />
        <Field
          name="name"
          label="Nom de la clé"
          hint={{ text: 'Pour la reconnaître, par exemple « logiciel de planning ».', id: 'name-hint' }}
          error={error}
          input={{ type: 'text', autocomplete: 'off', required: true, maxLength: 100, value: props.name ?? '' }}
        />
        <p>
          <button type="submit">Créer la clé</button>
        </p>
      </form>
    </Layout>
  );
}
