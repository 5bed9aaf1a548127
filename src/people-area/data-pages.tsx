import { PEOPLE_HOME } from '../accounts/sign-in.js';
import type { User } from '../accounts/users.js';
import type { PersonReservation } from '../reservations/repository.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import type { Erased } from './data-erase.js';

export const DATA_PATH = '/mon-espace/donnees';
export const DATA_DOWNLOAD_PATH = '/mon-espace/donnees/mes-donnees.json';
export const DATA_DELETE_PATH = '/mon-espace/donnees/suppression';

/** What the page says is held, read from the same store the download reads. */
export interface HeldSummary {
  accountSince: string | undefined;
  roles: string[];
  reservations: PersonReservation[];
}

const Back = () => (
  <p>
    <a href={PEOPLE_HOME}>← Mes réservations</a>
  </p>
);

/** "Mes données": what the service holds about the signed-in email; the download and the deletion. */
export function DataPage({ site, user, held }: { site: SiteInfo; user: User; held: HeldSummary }) {
  const active = held.reservations.filter((r) => r.status !== 'cancelled');
  return (
    <Layout site={site} title="Mes données" description="Les données gardées sur votre adresse e-mail" noindex>
      <Back />
      <h1>Mes données</h1>
      <p>Voici ce que le service garde sur l’adresse {user.email} :</p>
      <ul>
        <li>
          {held.accountSince
            ? `Votre compte, créé le ${frenchDate(held.accountSince)} à votre première connexion : l’adresse e-mail, vos connexions en cours et les liens de connexion demandés.`
            : 'Votre adresse e-mail, pour vos connexions.'}
          {held.roles.length ? ` Rôles : ${held.roles.join(', ')}.` : ''}
        </li>
        <li>
          {held.reservations.length === 0
            ? 'Aucune réservation.'
            : `${held.reservations.length} réservation${held.reservations.length > 1 ? 's' : ''} (${held.reservations.map((r) => r.reference).join(', ')}) : pour chacune, vos nom, prénom, e-mail, téléphone et motif du stage, la date de votre accord, son état et, si le centre les a notés, le paiement et votre présence. Le centre de chaque stage les reçoit aussi.`}
        </li>
      </ul>
      <p>
        Elles servent à vos réservations et à vous connecter. Celles des réservations sont effacées après le stage par
        la purge régulière du service ; votre compte reste tant que vous ne le supprimez pas.
      </p>
      <section aria-labelledby="telecharger" class="card">
        <h2 id="telecharger">Télécharger mes données</h2>
        <p>Un fichier JSON avec tout ce qui est gardé sur votre adresse, lisible par un autre logiciel.</p>
        <p>
          <a href={DATA_DOWNLOAD_PATH} download="mes-donnees.json">
            Télécharger mes données (JSON)
          </a>
        </p>
      </section>
      <section aria-labelledby="supprimer" class="card">
        <h2 id="supprimer">Supprimer mes données</h2>
        <p>
          {active.length ? 'Vos réservations à venir seront d’abord annulées et leurs places rendues. ' : ''}
          Vous pourrez vérifier ce qui sera effacé avant de confirmer.
        </p>
        <p>
          <a href={DATA_DELETE_PATH}>Supprimer mes données…</a>
        </p>
      </section>
    </Layout>
  );
}

/** The step before the deletion: what will happen, and the one button. */
export function DeleteConfirmPage(props: {
  site: SiteInfo;
  user: User;
  formToken: string;
  toCancel: PersonReservation[];
  begun: PersonReservation[];
  problem?: string | undefined;
}) {
  const { toCancel, begun } = props;
  const keepsAccount = props.user.admin || props.user.memberships.length > 0;
  return (
    <Layout site={props.site} title="Supprimer mes données" description="Supprimer vos données" noindex>
      <p>
        <a href={DATA_PATH}>← Mes données</a>
      </p>
      <h1>Supprimer mes données</h1>
      {props.problem ? (
        <p class="notice" role="alert">
          {props.problem}
        </p>
      ) : null}
      <p>En confirmant :</p>
      <ul>
        {toCancel.length ? (
          <li>
            {toCancel.length > 1 ? 'vos réservations à venir sont annulées' : 'votre réservation à venir est annulée'} (
            {toCancel.map((r) => `${r.reference}, stage du ${frenchDate(r.session.day1)}`).join(' ; ')}) : la place est
            rendue aussitôt et le centre en est prévenu comme pour toute annulation ; le paiement éventuel se règle avec
            lui ;
          </li>
        ) : null}
        <li>vos nom, e-mail, téléphone et liens personnels sont effacés de vos réservations ;</li>
        {begun.length ? (
          <li>
            pour un stage commencé ou suivi, votre nom et votre motif restent au centre jusqu’à l’envoi de l’attestation
            de stage à la préfecture (obligation légale), puis sont effacés ;
          </li>
        ) : null}
        <li>
          {keepsAccount
            ? 'votre compte reste, car il vous sert pour un centre ou pour le service, mais vous êtes déconnecté partout.'
            : 'votre compte et vos connexions sont supprimés : vous êtes déconnecté.'}
        </li>
      </ul>
      <p>Cela ne peut pas être annulé.</p>
      <form method="post" action={DATA_DELETE_PATH}>
        <input type="hidden" name="_csrf" value={props.formToken} />
        <p>
          <button type="submit" class="danger">
            Supprimer définitivement mes données
          </button>
        </p>
      </form>
      <p>
        <a href={DATA_PATH}>Ne rien supprimer</a>
      </p>
    </Layout>
  );
}

/** After the deletion: what went, what stays and why. The person is signed out. */
export function DeletedPage({ site, cancelled, erased }: { site: SiteInfo; cancelled: string[]; erased: Erased }) {
  return (
    <Layout site={site} title="Données supprimées" description="Vos données ont été supprimées" noindex>
      <h1>Vos données ont été supprimées</h1>
      <p class="notice" role="status">
        C’est fait : vous êtes déconnecté.
      </p>
      <h2>Ce qui a été supprimé</h2>
      <ul>
        {cancelled.length ? (
          <li>
            {cancelled.length > 1
              ? 'Réservations annulées d’abord, places rendues'
              : 'Réservation annulée d’abord, place rendue'}{' '}
            : {cancelled.join(', ')}.
          </li>
        ) : null}
        {erased.deleted.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <h2>Ce qui est gardé, et pourquoi</h2>
      {erased.kept.length ? (
        <ul>
          {erased.kept.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      ) : (
        <p>Rien qui vous nomme.</p>
      )}
      <p>
        Restent aussi, sans rien qui vous nomme : l’état et les dates (au jour près) des réservations effacées, pour les
        comptes du centre. Un e-mail déjà parti reste dans votre boîte. Pour toute question, écrivez au centre ; vous
        pouvez aussi adresser une réclamation à la CNIL.
      </p>
      <p>
        <a href="/">Retour à l’accueil</a>
      </p>
    </Layout>
  );
}
