import type { SessionEntry } from '../../catalogue/read-model.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import { CentreSection, SessionFacts } from '../../web/session-facts.js';
import type { ReservationView } from '../reservation-view.js';

export interface ReservationPageProps {
  site: SiteInfo;
  reservation: ReservationView;
  /** The session as the catalogue has it now (absent if it was removed since). */
  entry: SessionEntry | undefined;
  centre: { name: string; phone: string | null } | undefined;
  paymentNote: string;
  mailEnabled: boolean;
  /** This page's own address (the private link). */
  privateUrl: string;
  /** For the cancel form; absent when the reservation can no longer be cancelled here. */
  cancel?: { action: string; formToken: string } | undefined;
  /** What just happened (cancelled, already booked…), shown at the top. */
  notice?: string | undefined;
}

const STATUS_TEXT: Record<ReservationView['status'], string> = {
  pending: 'Place réservée, en attente de confirmation par le centre',
  confirmed: 'Réservation confirmée par le centre',
  cancelled: 'Réservation annulée',
};

/** The private page of a reservation: the confirmation people land on, and where they cancel. */
export function ReservationPage(props: ReservationPageProps) {
  const r = props.reservation;
  const entry = props.entry;
  const s = entry?.view;
  return (
    // The reference stays out of the title, hence out of browser history and tab lists.
    <Layout site={props.site} title="Votre réservation" description="Votre réservation" noindex>
      <h1 id="reservation">Votre réservation</h1>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <div class="card">
        <p class="reference">
          Référence <strong>{r.reference}</strong>
        </p>
        <p class={`status ${r.status}`}>{STATUS_TEXT[r.status]}</p>
        {r.cancelledByCentre ? (
          <p>Le centre a annulé cette réservation{entry?.cancelled ? ' : le stage n’aura pas lieu' : ''}.</p>
        ) : null}
        {r.status !== 'cancelled' ? (
          <>
            {props.mailEnabled && r.email ? (
              <p>
                Un e-mail de confirmation va être envoyé à <strong>{r.email}</strong>, avec le lien de cette page.
              </p>
            ) : (
              <p>
                <strong>Aucun e-mail ne vous est envoyé.</strong>
              </p>
            )}
            <p>
              <strong>Notez votre référence et gardez le lien de cette page</strong> (ajoutez-la à vos favoris) : c’est
              lui qui permet de revoir ou d’annuler la réservation. <a href={props.privateUrl}>{props.privateUrl}</a>
            </p>
          </>
        ) : null}
      </div>

      {s && entry ? (
        <section aria-labelledby="stage">
          <h2 id="stage">Le stage</h2>
          <div class="card">
            <SessionFacts entry={entry} hoursNote="les deux jours" />
            <p>
              <a href={`/stages/${s.id}`}>La page du stage</a>
            </p>
          </div>
        </section>
      ) : null}

      {r.status !== 'cancelled' ? (
        <section aria-labelledby="paiement">
          <h2 id="paiement">Paiement</h2>
          <p>{props.paymentNote}</p>
        </section>
      ) : null}

      {s ? (
        <CentreSection centre={s.centre}>
          {props.centre?.phone ? (
            <p>
              Téléphone : <a href={`tel:${props.centre.phone.replace(/[^\d+]/g, '')}`}>{props.centre.phone}</a>
            </p>
          ) : null}
        </CentreSection>
      ) : null}

      {r.person ? (
        <section aria-labelledby="vous">
          <h2 id="vous">Vos coordonnées</h2>
          <div class="card">
            <dl class="facts">
              <dt>Nom</dt>
              <dd>{r.person.name}</dd>
              <dt>E-mail</dt>
              <dd>{r.person.email}</dd>
              <dt>Téléphone</dt>
              <dd>{r.person.phone}</dd>
              <dt>Motif</dt>
              <dd>{r.person.reason}</dd>
            </dl>
          </div>
        </section>
      ) : null}

      {props.cancel ? (
        <section aria-labelledby="annuler">
          <h2 id="annuler">Annuler</h2>
          <form method="post" action={props.cancel.action}>
            <input type="hidden" name="formToken" value={props.cancel.formToken} />
            <p>La place sera rendue aussitôt à d’autres personnes.</p>
            <p>
              <button type="submit" class="danger">
                Annuler ma réservation
              </button>
            </p>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}
