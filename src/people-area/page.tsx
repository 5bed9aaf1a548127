import type { User } from '../accounts/users.js';
import { PersonAgentsLink } from '../agent-claims/person-agents-page.js';
import { whatToBring } from '../reservations/bring.js';
import { CANCELLATION_TERMS_TITLE, CancellationTerms } from '../reservations/cancellation-terms.js';
import { displayPhone } from '../reservations/phone.js';
import type { PersonReservation } from '../reservations/repository.js';
import { frenchDate, frenchTime, zoneNote } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';

/** One of the person's reservations as the page shows it: whether it is ahead, and if it can be cancelled or moved. */
export interface ListedReservation {
  reservation: PersonReservation;
  upcoming: boolean;
  cancellable: boolean;
  /** Before the change cut-off (CHANGE_CUTOFF_DAYS before its start). */
  changeable: boolean;
}

export interface PeoplePageProps {
  site: SiteInfo;
  user: User;
  formToken: string;
  reservations: ListedReservation[];
  notice?: string | undefined;
  problem?: string | undefined;
}

const STATUS_TEXT: Record<PersonReservation['status'], string> = {
  pending: 'Place réservée, en attente de confirmation par le centre',
  confirmed: 'Réservation confirmée par le centre',
  cancelled: 'Réservation annulée',
};

function ReservationCard({ item, formToken }: { item: ListedReservation; formToken: string }) {
  const { reservation: r } = item;
  const s = r.session;
  const c = r.centre;
  const zone = zoneNote(c.timeZone);
  const headingId = `r-${r.reference}`;
  return (
    <article class="card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        Stage des {frenchDate(s.day1)} et {frenchDate(s.day2)}
      </h3>
      <p class="reference">
        Référence <strong>{r.reference}</strong>
      </p>
      <p class={`status ${r.status}`}>{STATUS_TEXT[r.status]}</p>
      {r.status === 'cancelled' && r.cancelledBy === 'centre' ? (
        <p>Le centre a annulé cette réservation{s.cancelled ? ' : le stage n’aura pas lieu' : ''}.</p>
      ) : null}
      <dl class="facts">
        <dt>Horaires</dt>
        <dd>
          les deux jours, de {frenchTime(s.startTime)} à {frenchTime(s.endTime)}
          {zone ? ` (${zone})` : ''}
        </dd>
        <dt>Centre</dt>
        <dd>
          {c.name}
          <br />
          {c.address}, {c.postalCode} {c.city}
        </dd>
        {c.phone ? (
          <>
            <dt>Téléphone</dt>
            <dd>
              <a href={`tel:${c.phone.replace(/[^\d+]/g, '')}`}>{displayPhone(c.phone)}</a>
            </dd>
          </>
        ) : null}
      </dl>
      {item.upcoming && r.status !== 'cancelled' ? (
        <>
          <p>À apporter les deux jours :</p>
          <ul>
            {whatToBring(r.reason).map((line) => (
              <li>{line}</li>
            ))}
          </ul>
        </>
      ) : null}
      {r.status !== 'cancelled' ? (
        <>
          <h4 id={`${headingId}-conditions`}>{CANCELLATION_TERMS_TITLE}</h4>
          <CancellationTerms terms={c.cancellationTerms} />
        </>
      ) : null}
      {item.cancellable ? (
        item.changeable ? (
          <p>
            <a href={`/mon-espace/reservations/${r.id}/changement`}>Changer de date</a>
          </p>
        ) : (
          <p>La date ne peut plus être changée ici, le stage est trop proche : contactez le centre.</p>
        )
      ) : null}
      {item.cancellable ? (
        <form method="post" action={`/mon-espace/reservations/${r.id}/annulation`}>
          <input type="hidden" name="_csrf" value={formToken} />
          <p>
            <button type="submit" class="danger">
              Annuler la réservation {r.reference}
            </button>
          </p>
        </form>
      ) : null}
    </article>
  );
}

/** A person's area: every reservation made with their email, the upcoming ones first. */
export function PeoplePage(props: PeoplePageProps) {
  const { user } = props;
  const upcoming = props.reservations.filter((r) => r.upcoming && r.reservation.status !== 'cancelled');
  const others = props.reservations.filter((r) => !upcoming.includes(r));
  return (
    <Layout site={props.site} title="Mes réservations" description="Vos réservations de stage" noindex>
      <h1>Mes réservations</h1>
      <div>
        Connecté : {user.email}.{' '}
        <form method="post" action="/deconnexion" class="inline">
          <input type="hidden" name="_csrf" value={props.formToken} />
          <button type="submit" class="link">
            Se déconnecter
          </button>
        </form>
      </div>
      <Notices problem={props.problem} notice={props.notice} />
      <p>
        <a href="/mon-espace/donnees">Mes données</a> : les voir, les télécharger ou les supprimer
        <br />
        <a href="/mon-espace/alertes">Mes alertes « Prévenez-moi »</a>
      </p>
      <PersonAgentsLink />
      {user.memberships.length > 0 ? (
        <p>
          <a href="/espace-centre">Espace centre</a>
        </p>
      ) : null}
      {user.admin ? (
        <p>
          <a href="/administration">Administration du service</a>
        </p>
      ) : null}
      {props.reservations.length === 0 ? (
        <p>
          Aucune réservation n’a été faite avec cette adresse e-mail. <a href="/">Chercher un stage</a>
        </p>
      ) : null}
      {upcoming.length > 0 ? (
        <section aria-labelledby="a-venir">
          <h2 id="a-venir">À venir</h2>
          {upcoming.map((item) => (
            <ReservationCard item={item} formToken={props.formToken} />
          ))}
        </section>
      ) : null}
      {others.length > 0 ? (
        <section aria-labelledby="passees">
          <h2 id="passees">Passées ou annulées</h2>
          {others.map((item) => (
            <ReservationCard item={item} formToken={props.formToken} />
          ))}
        </section>
      ) : null}
    </Layout>
  );
}
