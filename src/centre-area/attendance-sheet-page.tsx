import { REASONS, type Reason } from '../reservations/form.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { personName } from './attendance-page.js';
import { type BookedPerson, HALF_DAYS, type SessionFile } from './attendance-repository.js';

export const sheetPath = (sessionId: string) => `/espace-centre/seances/${sessionId}/feuille`;
export const attendeesPath = (sessionId: string) => `/espace-centre/seances/${sessionId}/attestations`;

export const reasonText = (reason: string) => REASONS[reason as Reason] ?? reason;

function Heading(props: { session: SessionFile; title: string }) {
  const s = props.session;
  return (
    <>
      <p class="no-print">
        <a href={`/espace-centre/seances/${s.id}`}>← Réservations du stage</a>
      </p>
      <h1>{props.title}</h1>
      <p>
        {s.centre.name}, {s.centre.address}, {s.centre.postalCode} {s.centre.city} · stage n° {s.courseNumber} ·{' '}
        {frenchDate(s.day1)} et {frenchDate(s.day2)}, {s.startTime}–{s.endTime}
      </p>
    </>
  );
}

/** The attendance sheet to print: one line per person booked, a signature box per half-day. */
export function SheetPage(props: { site: SiteInfo; session: SessionFile; people: BookedPerson[] }) {
  const s = props.session;
  const title = `Feuille d’émargement · stage du ${frenchDate(s.day1)}`;
  return (
    <Layout site={props.site} title={title} description="La feuille d’émargement d’un stage, à imprimer" noindex>
      <Heading session={s} title={title} />
      <p class="no-print">
        Imprimez cette page (elle tient sur une feuille en paysage), ou{' '}
        <a href={`${sheetPath(s.id)}.csv`} download>
          téléchargez-la pour un tableur (CSV)
        </a>
        .
      </p>
      {props.people.length === 0 ? (
        <p>Personne n’est inscrit à ce stage ici.</p>
      ) : (
        <table class="sheet">
          <caption>Signature de chaque stagiaire à chaque demi-journée</caption>
          <thead>
            <tr>
              <th scope="col">Stagiaire</th>
              {HALF_DAYS.map((h) => (
                <th scope="col">
                  {h.short} <span class="hint">{frenchDate(h.day === 1 ? s.day1 : s.day2)}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.people.map((p) => (
              <tr>
                <th scope="row">
                  {personName(p)} <span class="hint">{p.reference}</span>
                </th>
                {HALF_DAYS.map(() => (
                  <td class="sign" />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>Signatures des animateurs (psychologue et formateur BAFM) :</p>
    </Layout>
  );
}

/** After the course: who was present at all four half-days, for the attestations sent to the prefecture. */
export function AttendeesPage(props: {
  site: SiteInfo;
  session: SessionFile;
  attendees: BookedPerson[];
  others: number;
  open: boolean;
  exportedAt: string | undefined;
}) {
  const s = props.session;
  const title = `Stagiaires ayant suivi tout le stage · ${frenchDate(s.day1)}`;
  return (
    <Layout site={props.site} title={title} description="Les stagiaires présents aux quatre demi-journées" noindex>
      <Heading session={s} title={title} />
      {!props.open ? (
        <p>La liste est disponible à partir du {frenchDate(s.day2)}, le second jour du stage.</p>
      ) : (
        <>
          <p>
            Présents aux quatre demi-journées : seuls eux reçoivent l’attestation de suivi de stage, que le centre
            transmet à la préfecture (Code de la route, articles R223-5 et R223-8).
            {props.others > 0
              ? ` Présence incomplète pour ${props.others} autre${props.others > 1 ? 's' : ''} personne${props.others > 1 ? 's' : ''} inscrite${props.others > 1 ? 's' : ''}.`
              : ''}
          </p>
          <p class="no-print">
            <a href={`${attendeesPath(s.id)}.csv`} download>
              Télécharger la liste (CSV)
            </a>{' '}
            {props.exportedAt ? `· dernier téléchargement le ${props.exportedAt}` : '· pas encore téléchargée'}
          </p>
          {props.attendees.length === 0 ? (
            <p>Personne n’a été noté présent aux quatre demi-journées.</p>
          ) : (
            <table class="sheet">
              <caption>Stagiaires présents aux quatre demi-journées</caption>
              <thead>
                <tr>
                  <th scope="col">Stagiaire</th>
                  <th scope="col">Référence</th>
                  <th scope="col">Motif</th>
                </tr>
              </thead>
              <tbody>
                {props.attendees.map((p) => (
                  <tr>
                    <th scope="row">{personName(p)}</th>
                    <td>{p.reference}</td>
                    <td>{reasonText(p.reason)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Layout>
  );
}
