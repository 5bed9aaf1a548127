import type { SessionEntry } from '../catalogue/read-model.js';
import type { SessionStatus } from './structured-data.js';

/**
 * The booking step of the session page. Only open sessions get here (full and past ones show
 * their alternatives instead). Online booking is not built yet: this section says how to book
 * meanwhile, and is where the reservation form goes.
 */
export function BookingSection({ entry }: { entry: SessionEntry; status: SessionStatus }) {
  const s = entry.view;
  return (
    <section class="card" aria-labelledby="reservation" id="reserver">
      <h2 id="reservation">Réserver une place</h2>
      <p>
        La réservation en ligne n’est pas encore ouverte sur ce site. Pour réserver, adressez-vous au centre{' '}
        <strong>{s.centre.name}</strong> en indiquant le numéro du stage <strong>{entry.record.courseNumber}</strong>.
      </p>
    </section>
  );
}
