import { PERSON_AGENTS_PATH } from './policy.js';

/**
 * What the two pages where a person answers an agent share: the consent page of an agent host (the
 * authorization code, authorization-page.tsx) and a claim's page (approval-page.tsx).
 */

/** What an agent never does, whatever the person grants (spec.md §1, §5.8). */
function NeverList() {
  return (
    <ul>
      <li>payer quoi que ce soit ;</li>
      <li>réserver un stage à votre place : c’est toujours vous qui finissez la réservation, sur ce site ;</li>
      <li>voir votre espace, vos réservations ou vos coordonnées (nom, e-mail, téléphone).</li>
    </ul>
  );
}

/** A signed-out visitor: who asks (`requester`, with its article), and the way to sign in and come back. */
export function SignInToAnswer({ requester, signInHref }: { requester: string; signInHref: string }) {
  return (
    <>
      <p>
        {requester} demande à pouvoir agir pour vous sur ce site. Pour lui répondre, connectez-vous d’abord : nous vous
        envoyons un lien par e-mail, sans mot de passe. Vous reviendrez ensuite sur cette page.
      </p>
      <p>
        <a href={signInHref}>Me connecter pour répondre</a>
      </p>
    </>
  );
}

/** To a signed-in person, on a request already answered: where their authorizations are. */
export function AgentsLink({ signedIn }: { signedIn: boolean }) {
  return signedIn ? (
    <p>
      <a href={PERSON_AGENTS_PATH}>Voir les assistants que vous avez autorisés</a>
    </p>
  ) : null;
}

/** The end of the form: what the agent (`pronoun`: elle or il) can never do, and the two answers. */
export function NeverAndDecision({ pronoun }: { pronoun: 'elle' | 'il' }) {
  return (
    <>
      <p>Quoi que vous choisissiez, {pronoun} ne pourra jamais :</p>
      <NeverList />
      <p>Vous pourrez retirer cette autorisation à tout moment, dans votre espace.</p>
      <p>
        <button type="submit" name="decision" value="approve">
          Autoriser
        </button>{' '}
        <button type="submit" name="decision" value="deny">
          Refuser
        </button>
      </p>
    </>
  );
}
