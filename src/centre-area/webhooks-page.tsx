import { SubmissionField } from '../accounts/form-submissions.js';
import type { Membership } from '../accounts/users.js';
import { METROPOLITAN_TIME_ZONE } from '../core/clock.js';
import { described, type FieldError, FieldMessage } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import { TEST_EVENT, WEBHOOK_EVENTS, type WebhookEventType } from '../webhooks/events.js';
import type { DeliveryRow, SubscriptionRow } from '../webhooks/subscriptions.js';

/** The events, as a centre reads them. */
export const EVENT_LABELS: Record<WebhookEventType | typeof TEST_EVENT, string> = {
  'reservation.created': 'Réservation créée',
  'reservation.cancelled': 'Réservation annulée',
  'reservation.confirmed': 'Réservation confirmée',
  'reservation.changed': 'Réservation modifiée',
  'session.changed': 'Stage modifié (places, prix, horaires, annulation)',
  [TEST_EVENT]: 'Test',
};

const instant = new Intl.DateTimeFormat('fr-FR', {
  timeZone: METROPOLITAN_TIME_ZONE,
  dateStyle: 'short',
  timeStyle: 'medium',
});
const when = (d: Date) => instant.format(d);

export interface SubscriptionView {
  subscription: SubscriptionRow;
  deliveries: DeliveryRow[];
}

export interface WebhooksPageProps {
  site: SiteInfo;
  membership: Membership;
  formToken: string;
  /** The add form's one-time id (accounts/form-submissions.tsx). */
  submissionId: string;
  subscriptions: SubscriptionView[];
  /** The subscription just created and its secret: shown this once. */
  created?: { id: string; secret: string } | undefined;
  notice?: string | undefined;
  problem?: string | undefined;
  errors?: FieldError[] | undefined;
  /** What was typed in the form, shown again with its errors. */
  values?: { url: string; events: string[] } | undefined;
}

/** The centre's webhooks (its owner's): each subscription, its last deliveries, and a form to add one. */
export function WebhooksPage(props: WebhooksPageProps) {
  const { membership: m, formToken } = props;
  const base = webhooksPath(m.centreId);
  const errorOf = (field: string) => props.errors?.find((e) => e.field === field);
  const checked = new Set(props.values?.events ?? []);
  return (
    <Layout site={props.site} title={`Webhooks · ${m.centreName}`} description="Les webhooks de votre centre" noindex>
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Webhooks de {m.centreName}</h1>
      <p>
        Un webhook envoie chaque événement de votre centre (réservations, changements de stage) à l’adresse de votre
        logiciel, signé selon Standard Webhooks. Voir la <a href="/docs">documentation de l’API</a>.
      </p>
      <Notices problem={props.problem} notice={props.notice} />
      {props.created ? (
        <section class="notice" aria-labelledby="secret-title">
          <h2 id="secret-title">Webhook ajouté : sa clé de signature</h2>
          <p>
            <code id="secret" class="break">
              {props.created.secret}
            </code>
          </p>
          <p>
            <strong>Copiez-la maintenant : elle ne sera plus jamais affichée.</strong> Votre logiciel s’en sert pour
            vérifier que les envois viennent bien de nous. Perdue, supprimez ce webhook et ajoutez-en un autre.
          </p>
        </section>
      ) : null}
      <h2>Vos webhooks</h2>
      {props.subscriptions.length === 0 ? (
        <p>Aucun webhook pour l’instant.</p>
      ) : (
        <ul class="area-sessions">
          {props.subscriptions.map((v) => (
            <Subscription view={v} base={base} formToken={formToken} />
          ))}
        </ul>
      )}
      <h2 id="ajouter">Ajouter un webhook</h2>
      {props.errors?.length ? (
        <div class="errors" role="alert">
          <p>Le webhook n’a pas été ajouté : corrigez ce qui est signalé.</p>
        </div>
      ) : null}
      <form method="post" action={base} class="area-form">
        <input type="hidden" name="_csrf" value={formToken} />
        <SubmissionField id={props.submissionId} />
        <div>
          <label for="url">
            Adresse de réception{' '}
            <span class="hint" id="url-hint">
              Commence par https://, sur internet (pas une adresse privée ou locale).
            </span>
          </label>
          <input
            id="url"
            name="url"
            type="url"
            inputmode="url"
            autocomplete="off"
            required
            value={props.values?.url ?? ''}
            {...described(errorOf('url'), 'url-hint')}
          />
          <FieldMessage error={errorOf('url')} />
        </div>
        <fieldset {...described(errorOf('events'))}>
          <legend>Événements à recevoir</legend>
          {WEBHOOK_EVENTS.map((event) => (
            <div class="check">
              <input
                type="checkbox"
                id={`event-${event}`}
                name="events"
                value={event}
                checked={props.values ? checked.has(event) : true}
              />
              <label for={`event-${event}`}>
                {EVENT_LABELS[event]} <span class="hint">{event}</span>
              </label>
            </div>
          ))}
          <FieldMessage error={errorOf('events')} />
        </fieldset>
        <p>
          <button type="submit">Ajouter le webhook</button>
        </p>
      </form>
    </Layout>
  );
}

export const webhooksPath = (centreId: string) => `/espace-centre/centres/${centreId}/webhooks`;

/** Said when the add form is sent again (`?deja=1`): its secret is not shown again. */
export const WEBHOOK_ALREADY_CREATED =
  'Ce webhook était déjà ajouté : le formulaire a été envoyé deux fois, aucun autre n’a été ajouté. Il figure ci-dessous, mais sa clé de signature n’est affichée qu’une fois, à sa création : si vous ne l’avez pas copiée, supprimez-le et ajoutez-en un autre.';

function state(s: SubscriptionRow): string {
  if (s.disabledAt) return `Désactivé le ${when(s.disabledAt)} (3 jours d’échecs) : il ne reçoit plus rien.`;
  if (s.failingSince) return `En échec depuis le ${when(s.failingSince)}.`;
  return 'Actif.';
}

function Subscription({ view, base, formToken }: { view: SubscriptionView; base: string; formToken: string }) {
  const { subscription: s, deliveries } = view;
  return (
    <li id={`webhook-${s.id}`} class={s.disabledAt || s.failingSince ? 'session risk' : 'session'}>
      <h3 class="break">{s.url}</h3>
      <p>
        <strong>{state(s)}</strong> Événements :{' '}
        {s.events.map((e) => EVENT_LABELS[e as WebhookEventType] ?? e).join(', ')}.
      </p>
      {deliveries.length === 0 ? (
        <p>Aucun envoi pour l’instant.</p>
      ) : (
        <table class="deliveries">
          <caption>Derniers envois</caption>
          <thead>
            <tr>
              <th scope="col">Heure</th>
              <th scope="col">Événement</th>
              <th scope="col">Réponse</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr>
                <td>{when(d.at)}</td>
                <td>{EVENT_LABELS[d.type as WebhookEventType] ?? d.type}</td>
                <td>
                  {d.statusCode ?? 'aucune'}
                  {d.error ? ` · échec : ${d.error}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.disabledAt ? null : (
        <form method="post" action={`${base}/${s.id}/test`} class="inline">
          <input type="hidden" name="_csrf" value={formToken} />
          <button type="submit" aria-label={`Envoyer un test à ${s.url}`}>
            Envoyer un test
          </button>
        </form>
      )}{' '}
      <form method="post" action={`${base}/${s.id}/supprimer`} class="inline">
        <input type="hidden" name="_csrf" value={formToken} />
        <button type="submit" class="danger" aria-label={`Supprimer le webhook ${s.url}`}>
          Supprimer
        </button>
      </form>
    </li>
  );
}
