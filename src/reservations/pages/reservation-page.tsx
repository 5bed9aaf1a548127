import type { SessionEntry } from '../../catalogue/read-model.js';
import { sessionPath } from '../../web/components.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import { CentreSection, SessionFacts } from '../../web/session-facts.js';
import { CANCELLATION_TERMS_TITLE, CancellationTerms } from '../cancellation-terms.js';
import type { ReservationView } from '../reservation-view.js';

export interface ReservationPageProps {
  site: SiteInfo;
  reservation: ReservationView;
  /** The session as the catalogue has it now (absent if it was removed since). */
  entry: SessionEntry | undefined;
  centre: { name: string; phone: string | null; cancellationTerms: string | null } | undefined;
  paymentNote: string;
  mailEnabled: boolean;
  /** This page's own address (the private link). */
  privateUrl: string;
  /** The calendar file's path; absent when the session is no longer in the catalogue. */
  calendarPath?: string | undefined;
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

/** Where the reservation stands, whether an email follows, and the link to keep. */
function ReservationState({
  reservation: r,
  courseCancelled,
  mailEnabled,
  privateUrl,
}: {
  reservation: ReservationView;
  courseCancelled: boolean;
  mailEnabled: boolean;
  privateUrl: string;
}) {
  return (
    <div class="card">
      <p class="reference">
        Référence <strong>{r.reference}</strong>
      </p>
      <p class={`status ${r.status}`}>{STATUS_TEXT[r.status]}</p>
      {r.cancelledByCentre ? (
        <p>Le centre a annulé cette réservation{courseCancelled ? ' : le stage n’aura pas lieu' : ''}.</p>
      ) : null}
      {r.status !== 'cancelled' ? (
        <>
          {mailEnabled && r.email ? (
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
            lui qui permet de revoir ou d’annuler la réservation. <a href={privateUrl}>{privateUrl}</a>
          </p>
        </>
      ) : null}
    </div>
  );
}

/** The details the person gave, as the centre received them. */
function PersonDetails({ person }: { person: NonNullable<ReservationView['person']> }) {
  return (
    <section aria-labelledby="vous">
      <h2 id="vous">Vos coordonnées</h2>
      <div class="card">
        <dl class="facts">
          <dt>Nom</dt>
          <dd>{person.name}</dd>
          <dt>E-mail</dt>
          <dd>{person.email}</dd>
          <dt>Téléphone</dt>
          <dd>{person.phone}</dd>
          <dt>Motif</dt>
          <dd>{person.reason}</dd>
        </dl>
      </div>
    </section>
  );
}

/** Cancelling, while the course has not begun. */
function CancelForm({ action, formToken }: { action: string; formToken: string }) {
  return (
    <section aria-labelledby="annuler">
      <h2 id="annuler">Annuler</h2>
      <form method="post" action={action}>
        <input type="hidden" name="formToken" value={formToken} />
        <p>La place sera rendue aussitôt à d’autres personnes.</p>
        <p>
          <button type="submit" class="danger">
            Annuler ma réservation
          </button>
        </p>
      </form>
    </section>
  );
}

/** The private page of a reservation: the confirmation people land on, and where they cancel. */
export function ReservationPage(props: ReservationPageProps) {
  const r = props.reservation;
  const entry = props.entry;
  return (
    // The reference stays out of the title, hence out of browser history and tab lists.
    <Layout site={props.site} title="Votre réservation" description="Votre réservation" noindex>
      <h1 id="reservation">Votre réservation</h1>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <ReservationState
        reservation={r}
        courseCancelled={entry?.cancelled === true}
        mailEnabled={props.mailEnabled}
        privateUrl={props.privateUrl}
      />
      <p>
        <a href="/connexion">Retrouver toutes mes réservations</a> (connexion par un lien envoyé à votre adresse e-mail)
      </p>

      {entry ? (
        <section aria-labelledby="stage">
          <h2 id="stage">Le stage</h2>
          <div class="card">
            <SessionFacts entry={entry} hoursNote="les deux jours" />
            {props.calendarPath ? (
              <p>
                <a href={props.calendarPath} download>
                  Ajouter à mon agenda (.ics)
                </a>
              </p>
            ) : null}
            <p>
              <a href={sessionPath(entry.view.id)}>La page du stage</a>
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

      {r.status !== 'cancelled' ? (
        <section aria-labelledby="conditions">
          <h2 id="conditions">{CANCELLATION_TERMS_TITLE}</h2>
          <CancellationTerms terms={props.centre?.cancellationTerms} />
        </section>
      ) : null}

      {entry ? (
        <CentreSection centre={entry.view.centre}>
          {props.centre?.phone ? (
            <p>
              Téléphone : <a href={`tel:${props.centre.phone.replace(/[^\d+]/g, '')}`}>{props.centre.phone}</a>
            </p>
          ) : null}
        </CentreSection>
      ) : null}

      {r.person ? <PersonDetails person={r.person} /> : null}

      {props.cancel ? <CancelForm {...props.cancel} /> : null}
    </Layout>
  );
}
