import type { TeamMember } from '../accounts/team.js';
import type { Membership } from '../accounts/users.js';
import { dateIn } from '../core/clock.js';
import { Field, type FieldError } from '../web/field.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';

export const teamPath = (centreId: string) => `/espace-centre/centres/${centreId}/equipe`;

const ROLE_NAMES = { owner: 'Responsable', staff: 'Équipe' } as const;

export interface TeamPageProps {
  site: SiteInfo;
  membership: Membership;
  /** The signed-in owner. */
  userId: string;
  formToken: string;
  members: TeamMember[];
  notice?: string | undefined;
  problem?: string | undefined;
  errors?: FieldError[] | undefined;
  /** The email typed, shown again with its error. */
  email?: string | undefined;
}

/** The centre's team (its owner's): members and their role, invite a staff member by email, remove one. */
export function TeamPage(props: TeamPageProps) {
  const { membership: m, formToken } = props;
  const base = teamPath(m.centreId);
  const error = props.errors?.find((e) => e.field === 'email');
  return (
    <Layout site={props.site} title={`Équipe · ${m.centreName}`} description="L’équipe de votre centre" noindex>
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Équipe de {m.centreName}</h1>
      <Notices problem={props.problem} notice={props.notice} />
      <p>
        L’équipe tient à jour les stages, leurs places et leurs réservations. L’équipe, les clés d’API, les webhooks et
        les coordonnées du centre sont réservés aux responsables. Un responsable est nommé par l’exploitant du service
        (en ligne de commande), pas depuis cette page.
      </p>
      <ul class="area-sessions">
        {props.members.map((member) => (
          <li id={`membre-${member.userId}`} class="session">
            <h2 class="break">{member.email}</h2>
            <p>
              {ROLE_NAMES[member.role]}
              {member.userId === props.userId ? ' (vous)' : ''} · depuis le {frenchDate(dateIn(member.since))}
              {member.disabled ? ' · compte désactivé par l’exploitant' : ''}
            </p>
            <form method="post" action={`${base}/${member.userId}/retirer`} class="inline">
              <input type="hidden" name="_csrf" value={formToken} />
              <button type="submit" class="danger" aria-label={`Retirer de l’équipe : ${member.email}`}>
                Retirer de l’équipe
              </button>
            </form>
          </li>
        ))}
      </ul>
      <h2 id="inviter">Inviter un membre de l’équipe</h2>
      <p>
        La personne reçoit un e-mail avec un lien de connexion (valable 15 minutes, à usage unique) ; ensuite elle se
        connecte avec son adresse sur la page de connexion.
      </p>
      {error ? (
        <div class="errors" role="alert">
          <p>Personne n’a été invité : corrigez l’adresse.</p>
        </div>
      ) : null}
      <form method="post" action={base} class="area-form">
        <input type="hidden" name="_csrf" value={formToken} />
        <Field
          name="email"
          label="Adresse e-mail"
          error={error}
          input={{
            type: 'email',
            autocomplete: 'off',
            inputmode: 'email',
            required: true,
            value: props.email ?? '',
          }}
        />
        <p>
          <button type="submit">Inviter</button>
        </p>
      </form>
    </Layout>
  );
}
