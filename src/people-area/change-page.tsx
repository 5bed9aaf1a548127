import { SubmissionField } from '../accounts/form-submissions.js';
import { formatPrice } from '../catalogue/price.js';
import type { PersonReservation } from '../reservations/repository.js';
import { frenchDate, frenchTime, hours, spotsLeftText, zoneNote } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import type { ChangeCandidate, ChangeCandidates } from './change-candidates.js';

export interface ChangePageProps {
  site: SiteInfo;
  reservation: PersonReservation;
  formToken: string;
  submissionId: string;
  /** The sessions offered; undefined when the reservation cannot be changed here (`closed` says why). */
  candidates?: ChangeCandidates | undefined;
  /** Why no change is offered (cancelled, too close to the course, gone from the catalogue). */
  closed?: string | undefined;
  problem?: string | undefined;
  cutoffDays: number;
}

function CandidateCard({
  item,
  reservationId,
  formToken,
  submissionId,
}: {
  item: ChangeCandidate;
  reservationId: string;
  formToken: string;
  submissionId: string;
}) {
  const s = item.entry.view;
  const headingId = `s-${s.id}`;
  return (
    <li class="card">
      <h3 id={headingId}>
        {frenchDate(s.day1)} et {frenchDate(s.day2)}
      </h3>
      <dl class="facts">
        <dt>Horaires</dt>
        <dd>{hours(item.entry)}, les deux jours</dd>
        <dt>Prix</dt>
        <dd>{formatPrice(s.priceEuros)}</dd>
        <dt>Places</dt>
        <dd>{spotsLeftText(s.spotsAvailable)}</dd>
        <dt>Centre</dt>
        <dd>
          {s.centre.name}, {s.centre.address}, {s.centre.postalCode} {s.centre.city}
          {item.distanceKm > 0 ? ` (à ${item.distanceKm.toLocaleString('fr-FR')} km)` : ''}
        </dd>
      </dl>
      <form method="post" action={`/mon-espace/reservations/${reservationId}/changement`}>
        <input type="hidden" name="_csrf" value={formToken} />
        <SubmissionField id={submissionId} />
        <input type="hidden" name="sessionId" value={s.id} />
        <button type="submit" aria-describedby={headingId}>
          Choisir ce stage
        </button>
      </form>
    </li>
  );
}

/** Changing a reservation's date: the sessions one may move to, the booked centre's first. */
export function ChangePage(props: ChangePageProps) {
  const r = props.reservation;
  const s = r.session;
  const zone = zoneNote(r.centre.timeZone);
  const list = (items: ChangeCandidate[]) => (
    <ul class="plain">
      {items.map((item) => (
        <CandidateCard item={item} reservationId={r.id} formToken={props.formToken} submissionId={props.submissionId} />
      ))}
    </ul>
  );
  const c = props.candidates;
  return (
    <Layout site={props.site} title="Changer de date" description="Changer la date de votre stage" noindex>
      <p>
        <a href="/mon-espace">← Mes réservations</a>
      </p>
      <h1>Changer de date</h1>
      {props.problem ? (
        <p class="notice" role="alert">
          {props.problem}
        </p>
      ) : null}
      <div class="card">
        <p>
          Votre réservation <strong>{r.reference}</strong> : stage des {frenchDate(s.day1)} et {frenchDate(s.day2)}, de{' '}
          {frenchTime(s.startTime)} à {frenchTime(s.endTime)}
          {zone ? ` (${zone})` : ''}, {r.centre.name}, {r.centre.city}.
        </p>
      </div>
      {props.closed ? (
        <p class="notice">{props.closed}</p>
      ) : c ? (
        <>
          <p>
            Choisissez un autre stage : votre nouvelle place est prise et l’ancienne rendue en même temps. La nouvelle
            réservation attend la confirmation du centre, comme une première réservation. Un changement est possible
            jusqu’à {props.cutoffDays} jour{props.cutoffDays > 1 ? 's' : ''} avant le début du stage.
          </p>
          <section aria-labelledby="meme-centre">
            <h2 id="meme-centre">Au même centre</h2>
            {c.sameCentre.length > 0 ? (
              list(c.sameCentre)
            ) : (
              <p>Ce centre n’a pas d’autre stage avec des places pour le moment.</p>
            )}
          </section>
          <section aria-labelledby="autres-centres">
            <h2 id="autres-centres">Dans un centre proche</h2>
            <p>
              Changer de centre, c’est annuler votre réservation au premier centre et en faire une nouvelle au second
              (avec une nouvelle référence) : le paiement se règle avec chaque centre (remboursement éventuel auprès du
              premier, selon ses conditions, et paiement auprès du nouveau).
            </p>
            {c.nearby.length > 0 ? list(c.nearby) : <p>Aucun stage avec des places dans un centre proche.</p>}
          </section>
        </>
      ) : null}
    </Layout>
  );
}
