import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { type BookedPerson, HALF_DAYS, type SessionFile } from './attendance-repository.js';

export const attendancePath = (sessionId: string) => `/espace-centre/seances/${sessionId}/presences`;

/** A person's name as the sheets show it: last name first; erased data says so. */
export const personName = (p: BookedPerson) =>
  p.lastName === null ? `Données effacées (${p.reference})` : `${p.lastName.toUpperCase()} ${p.firstName ?? ''}`.trim();

/** The date of a half-day of this session. */
export const halfDayDate = (s: SessionFile, day: 1 | 2) => (day === 1 ? s.day1 : s.day2);

function Messages(props: { notice?: string | undefined; problem?: string | undefined }) {
  return props.problem ? (
    <p class="notice" role="alert">
      {props.problem}
    </p>
  ) : props.notice ? (
    <p class="notice" role="status">
      {props.notice}
    </p>
  ) : null;
}

/**
 * The roll call: one form per half-day, a checkbox per person booked (checked: present; unchecked:
 * absent), open from that half-day's date in the centre's zone. Works without JavaScript on a phone.
 */
export function AttendancePage(props: {
  site: SiteInfo;
  session: SessionFile;
  people: BookedPerson[];
  today: string;
  formToken: string;
  notice?: string | undefined;
  problem?: string | undefined;
}) {
  const { session: s } = props;
  const title = `Présences · stage du ${frenchDate(s.day1)}`;
  return (
    <Layout site={props.site} title={title} description="Les présences d’un stage, par demi-journée" noindex>
      <p>
        <a href={`/espace-centre/seances/${s.id}`}>← Réservations du stage</a>
      </p>
      <h1>{title}</h1>
      <p>
        {s.centre.name} · {frenchDate(s.day1)} et {frenchDate(s.day2)} · {s.startTime}–{s.endTime}
      </p>
      <Messages notice={props.notice} problem={props.problem} />
      <p>
        Cochez les personnes présentes à chaque demi-journée ; une personne non cochée est notée absente. Seules les
        personnes présentes aux quatre demi-journées reçoivent l’attestation de stage.
      </p>
      {s.status === 'cancelled' ? (
        <p>Ce stage est annulé : il n’y a pas de présences à noter.</p>
      ) : props.people.length === 0 ? (
        <p>Personne n’est inscrit à ce stage ici.</p>
      ) : (
        HALF_DAYS.map((h) => {
          const date = halfDayDate(s, h.day);
          const open = props.today >= date;
          return (
            <section id={`demi-journee-${h.n}`}>
              <h2>
                {h.label} · {frenchDate(date)}
              </h2>
              {open ? (
                <form method="post" action={attendancePath(s.id)} class="area-form">
                  <input type="hidden" name="_csrf" value={props.formToken} />
                  <input type="hidden" name="demi_journee" value={String(h.n)} />
                  <fieldset>
                    <legend>Présents · {h.label}</legend>
                    {props.people.map((p) => (
                      <div class="check">
                        <input
                          type="checkbox"
                          id={`p${h.n}-${p.id}`}
                          name="present"
                          value={p.id}
                          checked={p.marks[h.n - 1] === true}
                        />{' '}
                        <label for={`p${h.n}-${p.id}`}>
                          {personName(p)}{' '}
                          <span class="hint">
                            {p.marks[h.n - 1] === null ? 'non noté' : p.marks[h.n - 1] ? 'présent' : 'absent'}
                          </span>
                        </label>
                      </div>
                    ))}
                  </fieldset>
                  <button type="submit">Enregistrer les présences · {h.label}</button>
                </form>
              ) : (
                <p>Les présences se notent à partir du {frenchDate(date)}.</p>
              )}
            </section>
          );
        })
      )}
    </Layout>
  );
}
