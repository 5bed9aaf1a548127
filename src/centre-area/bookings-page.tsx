import type { ReservationView } from '../reservations/reservation-view.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { editPath } from './edit-session-page.js';
import type { AreaSession } from './repository.js';
import type { TrainersForm } from './trainers.js';

export interface BookingLine {
  id: string;
  view: ReservationView;
}

const STATUS = { pending: 'à confirmer', confirmed: 'confirmée', cancelled: 'annulée' } as const;

/** A session's bookings made here, for its centre: who, how to reach them, and confirm or cancel. */
export function BookingsPage(props: {
  site: SiteInfo;
  session: AreaSession;
  centreName: string;
  bookings: BookingLine[];
  trainers: TrainersForm;
  formToken: string;
  notice?: string | undefined;
  problem?: string | undefined;
}) {
  const { session: s } = props;
  const title = `Stage du ${frenchDate(s.day1)}`;
  return (
    <Layout site={props.site} title={`Réservations · ${title}`} description="Les réservations d’un stage" noindex>
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>{title}</h1>
      <p>
        {props.centreName} · {s.startTime}–{s.endTime} · {s.spotsAvailable} place{s.spotsAvailable > 1 ? 's' : ''} libre
        {s.spotsAvailable > 1 ? 's' : ''} sur {s.capacity}
      </p>
      <p>
        Animateurs (jamais publiés) : psychologue{' '}
        {props.trainers.psychologistName ? <strong>{props.trainers.psychologistName}</strong> : 'à renseigner'} ·
        formateur BAFM {props.trainers.bafmName ? <strong>{props.trainers.bafmName}</strong> : 'à renseigner'}
      </p>
      <p>
        <a href={editPath(s.id)}>
          Modifier le prix, les horaires, la taille du groupe, la déclaration ou les animateurs
        </a>
      </p>
      {props.problem ? (
        <p class="notice" role="alert">
          {props.problem}
        </p>
      ) : props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <h2>Réservations faites ici</h2>
      {props.bookings.length === 0 ? (
        <p>Aucune réservation n’a été faite ici pour ce stage.</p>
      ) : (
        <ul class="area-sessions">
          {props.bookings.map(({ id, view }) => (
            <li class="session" id={`reservation-${id}`}>
              <h3>
                {view.person?.name ?? 'Données effacées'} · <span class="hint">{view.reference}</span>
              </h3>
              {view.person ? (
                <p>
                  <a href={`mailto:${view.person.email}`}>{view.person.email}</a> · {view.person.phone} ·{' '}
                  {view.person.reason}
                </p>
              ) : null}
              <p>
                <strong>Réservation {STATUS[view.status]}</strong>
              </p>
              {view.status === 'cancelled' ? null : (
                <form method="post" action={`/espace-centre/reservations/${id}`} class="inline">
                  <input type="hidden" name="_csrf" value={props.formToken} />
                  {view.status === 'pending' ? (
                    <button type="submit" name="action" value="confirmer">
                      Confirmer
                    </button>
                  ) : null}{' '}
                  <button type="submit" name="action" value="annuler" class="danger">
                    Annuler (rend la place)
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}
