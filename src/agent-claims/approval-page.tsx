import { described, Field, type FieldError, FieldMessage } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import type { ClaimForPage } from './claim-for-page.js';
import { AgentsLink, NeverAndDecision, SignInToAnswer } from './consent-parts.js';
import { CLAIM_PAGE_PATH } from './policy.js';
import { type AgentScope, SCOPE_TEXT } from './scopes.js';

export interface ApprovalPageProps {
  site: SiteInfo;
  claim: ClaimForPage;
  formToken: string;
  /** Set when the visitor is signed in; otherwise the page leads them to sign in first. */
  signedIn: boolean;
  signInHref: string;
  /** Whether the signed-in person is the one who decided it (the outcome is only told to them). */
  decidedHere: boolean;
  chosen?: readonly AgentScope[] | undefined;
  userCode?: string | undefined;
  error?: FieldError | undefined;
  notice?: string | undefined;
  problem?: string | undefined;
  /** The answer the person just gave (the address after their POST): said as done, only to them. */
  justAnswered?: 'approved' | 'denied' | undefined;
}

const JUST_ANSWERED = {
  approved:
    'C’est fait : l’assistant peut maintenant faire ce que vous avez coché. Vous pouvez retirer cette autorisation à tout moment dans votre espace.',
  denied: 'C’est noté : vous avez refusé, l’assistant ne peut rien faire pour vous.',
};

const OUTCOME: Record<Exclude<ClaimForPage['state'], 'pending'>, string> = {
  approved: 'Cette demande a déjà reçu une réponse : l’assistant a été autorisé.',
  denied: 'Cette demande a été refusée : l’assistant ne peut rien faire pour vous.',
  expired:
    'Cette demande a expiré : elle n’était valable que 10 minutes. Si vous voulez toujours autoriser l’assistant, demandez-lui d’en faire une nouvelle.',
  revoked: 'L’autorisation donnée par cette demande a été retirée : l’assistant ne peut plus rien faire pour vous.',
};

/**
 * The page a claim's person opens (claim_url): once signed in with the emailed link, they type
 * the code the agent gave them, see what it asks and what it can never do, choose, and approve
 * or refuse.
 */
export function ApprovalPage(props: ApprovalPageProps) {
  const { claim } = props;
  const chosen = new Set(props.chosen ?? claim.requested);
  const title = 'Autoriser un assistant à agir pour vous';
  const confirmed =
    props.decidedHere && props.justAnswered === claim.state ? JUST_ANSWERED[props.justAnswered] : undefined;
  return (
    <Layout site={props.site} title={title} description="Autoriser un assistant (agent IA) à agir pour vous" noindex>
      <h1>{title}</h1>
      <Notices notice={props.notice ?? confirmed} problem={props.problem} />
      {claim.state !== 'pending' ? (
        <>
          {confirmed ? null : (
            <p>
              {claim.state === 'expired' || props.decidedHere
                ? OUTCOME[claim.state]
                : 'Cette demande a déjà reçu une réponse : elle ne peut plus servir.'}
            </p>
          )}
          <AgentsLink signedIn={props.signedIn} />
        </>
      ) : !props.signedIn ? (
        <SignInToAnswer
          requester="Un assistant (un programme, souvent une intelligence artificielle)"
          signInHref={props.signInHref}
        />
      ) : (
        <form method="post" action={CLAIM_PAGE_PATH} noValidate>
          <input type="hidden" name="_csrf" value={props.formToken} />
          <input type="hidden" name="claim" value={claim.id} />
          <p>
            L’assistant « {claim.clientName} » demande à pouvoir agir pour vous.{' '}
            <span class="hint">
              Ce nom est celui que l’assistant s’est donné lui-même : il n’est pas vérifié, rien ne garantit qui est
              derrière.
            </span>
          </p>
          <Field
            name="user_code"
            label="Le code que l’assistant vous a donné"
            hint={{ text: '8 lettres, par exemple BCDF-GHJK', id: 'user_code-hint' }}
            error={props.error?.field === 'user_code' ? props.error : undefined}
            input={{
              type: 'text',
              value: props.userCode ?? '',
              autocomplete: 'off',
              autocapitalize: 'characters',
              spellcheck: false,
              maxLength: 20,
            }}
          />
          <fieldset {...described(props.error?.field === 'scope' ? props.error : undefined)}>
            <legend>Ce que vous l’autorisez à faire</legend>
            {claim.requested.map((scope) => (
              <div class="check">
                <input type="checkbox" id={`scope-${scope}`} name="scope" value={scope} checked={chosen.has(scope)} />
                <label for={`scope-${scope}`}>{SCOPE_TEXT[scope]}</label>
              </div>
            ))}
            <FieldMessage error={props.error?.field === 'scope' ? props.error : undefined} />
          </fieldset>
          <NeverAndDecision pronoun="il" />
        </form>
      )}
    </Layout>
  );
}

/** When no such claim exists (a mistyped or very old address). */
export function UnknownClaimPage({ site }: { site: SiteInfo }) {
  return (
    <Layout site={site} title="Demande introuvable" description="Cette demande d’autorisation n’existe pas" noindex>
      <h1>Demande introuvable</h1>
      <p>
        Cette adresse ne correspond à aucune demande d’autorisation. Vérifiez le lien que l’assistant vous a donné, ou
        demandez-lui d’en faire une nouvelle.
      </p>
    </Layout>
  );
}
