import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import type { PersonAgent } from './person-agents.js';
import { PEOPLE_AGENTS_LINK_TEXT, PERSON_AGENTS_PATH } from './policy.js';
import { SCOPE_LABEL } from './scopes.js';

export interface PersonAgentsPageProps {
  site: SiteInfo;
  formToken: string;
  agents: PersonAgent[];
  /** The day an authorisation was given, in the service's time zone (YYYY-MM-DD). */
  dayOf: (at: Date) => string;
  notice?: string | undefined;
  problem?: string | undefined;
}

/** The agents a person lets act for them, each with a button that withdraws its authorisation. */
export function PersonAgentsPage(props: PersonAgentsPageProps) {
  return (
    <Layout
      site={props.site}
      title={PEOPLE_AGENTS_LINK_TEXT}
      description="Les assistants qui agissent pour vous"
      noindex
    >
      <h1>{PEOPLE_AGENTS_LINK_TEXT}</h1>
      <p>
        <a href="/mon-espace">Retour à mes réservations</a>
      </p>
      <Notices problem={props.problem} notice={props.notice} />
      <p>
        Un assistant autorisé ne peut jamais payer, réserver à votre place, ni voir votre espace ou vos coordonnées.
        Retirer son autorisation prend effet aussitôt.
      </p>
      {props.agents.length === 0 ? (
        <p>Vous n’avez autorisé aucun assistant à agir pour vous.</p>
      ) : (
        props.agents.map((agent, index) => (
          <article class="card" aria-labelledby={`agent-${index}`}>
            <h2 id={`agent-${index}`}>
              « {agent.clientName} » <span class="hint">(nom donné par l’assistant, non vérifié)</span>
            </h2>
            {agent.clientHost ? (
              <p>
                Publié par le site <strong>{agent.clientHost}</strong> (vérifié).
              </p>
            ) : null}
            <p>
              Autorisé le {frenchDate(props.dayOf(agent.since))} à :{' '}
              {agent.scopes.length > 0
                ? agent.scopes.map((scope) => SCOPE_LABEL[scope]).join(', ')
                : 'rien de plus que lire les stages'}
              .
            </p>
            <form method="post" action={`${PERSON_AGENTS_PATH}/${agent.claimId}/retrait`}>
              <input type="hidden" name="_csrf" value={props.formToken} />
              <button type="submit" class="danger">
                Retirer l’autorisation de « {agent.clientName} »
              </button>
            </form>
          </article>
        ))
      )}
    </Layout>
  );
}

/** The people's area's link to this page. */
export function PersonAgentsLink() {
  return (
    <p>
      <a href={PERSON_AGENTS_PATH}>{PEOPLE_AGENTS_LINK_TEXT}</a>
    </p>
  );
}
