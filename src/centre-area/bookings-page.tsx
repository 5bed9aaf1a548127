import { dateIn } from '../core/clock.js';
import type { ReservationView } from '../reservations/reservation-view.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import { editPath } from './edit-session-page.js';
import type { AreaSession } from './repository.js';
import type { TrainersForm } from './trainers.js';

export interface BookingLine {
  id: string;
  view: ReservationView;
  /** When the centre marked it paid; null: not paid. */
  paidAt: Date | null;
}

const STATUS = { pending: 'à confirmer', confirmed: 'confirmée', cancelled: 'annulée' } as const;

/** A session's bookings made here, for its centre: who, how to reach them, and confirm or cancel. */
export function BookingsPage(props: {
  site: SiteInfo;
  session: AreaSession;
  centreName: string;
  /** When the joining instructions were last emailed; null: never. */
  convocationSentAt: Date | null;
  cancelled: boolean;
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
      <Notices problem={props.problem} notice={props.notice} />
      <nav aria-label="Suivi du stage">
        <ul>
          <li>
            <a href={`/espace-centre/seances/${s.id}/presences`}>Présences par demi-journée</a>
          </li>
          <li>
            <a href={`/espace-centre/seances/${s.id}/feuille`}>Feuille d’émargement</a> (à imprimer, ou{' '}
            <a href={`/espace-centre/seances/${s.id}/feuille.csv`}>CSV</a>)
          </li>
          <li>
            <a href={`/espace-centre/seances/${s.id}/attestations`}>Stagiaires ayant suivi tout le stage</a> (pour les
            attestations)
          </li>
        </ul>
      </nav>
      {props.cancelled ? null : (
        <section id="convocation">
          <h2>Convocation</h2>
          {props.convocationSentAt ? (
            <>
              <p>
                Convocation envoyée le {frenchDate(dateIn(props.convocationSentAt))} à toutes les personnes alors
                inscrites.
              </p>
              <form method="post" action={`/espace-centre/seances/${s.id}/convocation`}>
                <input type="hidden" name="_csrf" value={props.formToken} />
                <input type="hidden" name="renvoyer" value="oui" />
                <button type="submit">Renvoyer la convocation à toutes les personnes inscrites</button>
              </form>
            </>
          ) : (
            <>
              <p>
                Un e-mail à chaque personne inscrite (hors annulations) : l’adresse, les deux jours et les horaires, ce
                qu’il faut apporter (permis, pièce d’identité, lettre 48N pour un stage obligatoire).
              </p>
              <form method="post" action={`/espace-centre/seances/${s.id}/convocation`}>
                <input type="hidden" name="_csrf" value={props.formToken} />
                <button type="submit">Envoyer la convocation</button>
              </form>
            </>
          )}
        </section>
      )}
      <h2>Réservations faites ici</h2>
      {props.bookings.length === 0 ? (
        <p>Aucune réservation n’a été faite ici pour ce stage.</p>
      ) : (
        <ul class="area-sessions">
          {props.bookings.map(({ id, view, paidAt }) => (
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
                <strong>Réservation {STATUS[view.status]}</strong> ·{' '}
                {paidAt ? `payée (marquée le ${frenchDate(dateIn(paidAt))})` : 'non payée'}
              </p>
              {view.person ? (
                <form method="post" action={`/espace-centre/reservations/${id}/paiement`} class="inline">
                  <input type="hidden" name="_csrf" value={props.formToken} />
                  {paidAt ? (
                    <button type="submit" name="action" value="impaye">
                      Marquer non payée
                    </button>
                  ) : (
                    <button type="submit" name="action" value="paye">
                      Marquer payée
                    </button>
                  )}
                </form>
              ) : null}
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
