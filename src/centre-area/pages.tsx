import type { Membership, User } from '../accounts/users.js';
import { formatPrice } from '../catalogue/price.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import { type AreaPart, may } from './access.js';
import { detailsPath } from './details-page.js';
import { editPath } from './edit-session-page.js';
import { historyPath } from './history-page.js';
import { importPath } from './import-page.js';
import { keysPath } from './keys-page.js';
import { type AreaSession, atRisk } from './repository.js';
import { teamPath } from './team-page.js';
import { webhooksPath } from './webhooks-page.js';

export interface DashboardProps {
  site: SiteInfo;
  user: User;
  formToken: string;
  today: string;
  sessions: AreaSession[];
  /** Sessions not yet declared to the prefecture, starting soon: days left before each one's start. */
  undeclared: ReadonlyMap<string, number>;
  notice?: string | undefined;
  /** A refusal, shown as an alert. */
  problem?: string | undefined;
}

/** The centre's area: each centre of the user, its upcoming sessions, their places, and what stands out. */
export function DashboardPage(props: DashboardProps) {
  const { user, sessions } = props;
  return (
    <Layout site={props.site} title="Espace centre" description="Les stages de votre centre" noindex>
      <h1>Espace centre</h1>
      <p>
        Connecté : {user.email}. <SignOut formToken={props.formToken} label="Se déconnecter" /> ·{' '}
        <SignOut formToken={props.formToken} label="Se déconnecter partout" everywhere />
      </p>
      <Notices problem={props.problem} notice={props.notice} />
      {user.admin ? (
        <p>
          <a href="/administration">Administration du service</a> (exploitant)
        </p>
      ) : null}
      <p>
        <a href="/mon-espace">Mes réservations de stage</a> (celles faites avec votre adresse e-mail)
      </p>
      {user.memberships.length === 0 ? (
        <p>
          Votre compte n’est rattaché à aucun centre. Le responsable de votre centre peut vous ajouter à son équipe, ou
          l’exploitant du service vous donner accès à un centre.
        </p>
      ) : (
        <p>
          <a href="/espace-centre/seances/nouvelle">Nouveau stage</a> (une date, ou la même sur plusieurs semaines)
        </p>
      )}
      {user.memberships.map((m) => (
        <CentreSessions
          membership={m}
          sessions={sessions.filter((s) => s.centreId === m.centreId)}
          today={props.today}
          undeclared={props.undeclared}
          formToken={props.formToken}
        />
      ))}
    </Layout>
  );
}

function SignOut({ formToken, label, everywhere }: { formToken: string; label: string; everywhere?: boolean }) {
  return (
    <form method="post" action="/deconnexion" class="inline">
      <input type="hidden" name="_csrf" value={formToken} />
      {everywhere ? <input type="hidden" name="partout" value="1" /> : null}
      <button type="submit" class="link">
        {label}
      </button>
    </form>
  );
}

const ROLES = { owner: 'responsable', staff: 'équipe' } as const;

/** The centre's pages beside its sessions, each link shown only to a role that may use it. */
const CENTRE_PARTS: { part: AreaPart; path: (centreId: string) => string; label: string }[] = [
  { part: 'import', path: importPath, label: 'Importer un fichier de stages' },
  { part: 'details', path: detailsPath, label: 'Coordonnées' },
  { part: 'team', path: teamPath, label: 'Équipe' },
  { part: 'keys', path: keysPath, label: 'Clés d’API' },
  { part: 'webhooks', path: webhooksPath, label: 'Webhooks' },
  { part: 'history', path: historyPath, label: 'Historique' },
];

function CentreLinks({ membership: m }: { membership: Membership }) {
  const parts = CENTRE_PARTS.filter((p) => may(m.role, p.part));
  if (parts.length === 0) return null;
  return (
    <p>
      {parts.map((p, i) => (
        <>
          {i > 0 ? ' · ' : null}
          <a href={p.path(m.centreId)} aria-label={`${p.label} de ${m.centreName}`}>
            {p.label}
          </a>
        </>
      ))}
    </p>
  );
}

function CentreSessions(props: {
  membership: Membership;
  sessions: AreaSession[];
  today: string;
  undeclared: ReadonlyMap<string, number>;
  formToken: string;
}) {
  const { membership: m, sessions } = props;
  return (
    <section aria-labelledby={`centre-${m.centreId}`}>
      <h2 id={`centre-${m.centreId}`}>
        {m.centreName} <span class="hint">({ROLES[m.role]})</span>
      </h2>
      <CentreLinks membership={m} />
      {sessions.length === 0 ? (
        <p>Aucun stage à venir.</p>
      ) : (
        <ul class="area-sessions">
          {sessions.map((s) => {
            const risk = atRisk(s, props.today);
            const daysLeft = props.undeclared.get(s.id);
            const label = `${frenchDate(s.day1)}, ${s.startTime}–${s.endTime}`;
            return (
              <li id={`seance-${s.id}`} class={risk ? 'session risk' : 'session'}>
                <h3>
                  <a href={`/espace-centre/seances/${s.id}`}>{label}</a>
                </h3>
                <p>
                  <strong>
                    {s.spotsAvailable} place{s.spotsAvailable > 1 ? 's' : ''} libre{s.spotsAvailable > 1 ? 's' : ''} sur{' '}
                    {s.capacity}
                  </strong>{' '}
                  · {s.heldHere} réservation{s.heldHere > 1 ? 's' : ''} ici · {formatPrice(s.priceCents / 100)}
                </p>
                {risk ? (
                  <p class="notice">Risque d’annulation : moins de 6 places prises, à 10 jours ou moins du début.</p>
                ) : null}
                {daysLeft !== undefined ? (
                  <p class="notice">
                    Pas encore déclaré en préfecture : le stage commence{' '}
                    {daysLeft === 0 ? 'aujourd’hui' : `dans ${daysLeft} jour${daysLeft > 1 ? 's' : ''}`} (déclaration au
                    plus tard 10 jours avant). <a href={editPath(s.id)}>Indiquer la date de déclaration</a>
                  </p>
                ) : null}
                <form method="post" action={`/espace-centre/seances/${s.id}/places`} class="inline">
                  <input type="hidden" name="_csrf" value={props.formToken} />
                  <button type="submit" name="change" value="-1" aria-label={`−1 place, ${label}`}>
                    −1 place
                  </button>{' '}
                  <button type="submit" name="change" value="1" aria-label={`+1 place, ${label}`}>
                    +1 place
                  </button>
                </form>
                <details>
                  <summary>Annuler ce stage…</summary>
                  <form method="post" action={`/espace-centre/seances/${s.id}/annulation`}>
                    <input type="hidden" name="_csrf" value={props.formToken} />
                    <label for={`raison-${s.id}`}>Raison, envoyée aux personnes inscrites</label>
                    <textarea id={`raison-${s.id}`} name="raison" required minLength={3} maxLength={500} rows={3} />
                    <p>
                      <button type="submit" class="danger">
                        Annuler le stage du {frenchDate(s.day1)}
                      </button>
                    </p>
                  </form>
                </details>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
