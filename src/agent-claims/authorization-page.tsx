import type { Config } from '../config.js';
import { Layout, type SiteInfo, siteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import { renderPage } from '../web/render.js';
import { AgentsLink, NeverAndDecision, SignInToAnswer } from './consent-parts.js';
import { type AgentScope, SCOPE_TEXT } from './scopes.js';

export interface ConsentPageProps {
  site: SiteInfo;
  action: string;
  requestId: string;
  /** The name the application gave itself: unverified. */
  clientName: string;
  /** For an application known by its metadata document (a URL client_id): the host serving it, verified. */
  clientHost?: string | undefined;
  /** Where the answer goes (the host of the redirect URI). */
  redirectHost: string;
  requested: readonly AgentScope[];
  status: 'pending' | 'answered' | 'expired';
  signedIn: boolean;
  signInHref: string;
  formToken: string;
  problem?: string | undefined;
}

/**
 * The page where a person answers an agent host's (an AI application's) request to act for them
 * (issue 27): once signed in with the emailed link, they see the application's name (as it gave
 * it, unverified), where the answer goes, what it asks and what it can never do; they approve,
 * choosing among what it asks, or refuse.
 */
export function ConsentPage(props: ConsentPageProps) {
  const title = 'Connecter une application à votre compte';
  return (
    <Layout site={props.site} title={title} description="Autoriser une application (agent IA) à agir pour vous" noindex>
      <h1>{title}</h1>
      <Notices problem={props.problem} />
      {props.status === 'expired' ? (
        <p>
          Cette demande a expiré (elle n’était valable que 15 minutes). Retournez dans votre application et recommencez
          la connexion.
        </p>
      ) : props.status === 'answered' ? (
        <>
          <p>Cette demande a déjà reçu une réponse : elle ne peut plus servir.</p>
          <AgentsLink signedIn={props.signedIn} />
        </>
      ) : !props.signedIn ? (
        <SignInToAnswer
          requester="Une application (souvent un assistant d’intelligence artificielle)"
          signInHref={props.signInHref}
        />
      ) : (
        <form method="post" action={props.action} noValidate>
          <input type="hidden" name="_csrf" value={props.formToken} />
          <input type="hidden" name="demande" value={props.requestId} />
          <p>
            L’application « {props.clientName} » demande à pouvoir agir pour vous.{' '}
            <span class="hint">
              Ce nom est celui que l’application s’est donné elle-même, non vérifié : rien ne garantit qui est derrière.
            </span>
          </p>
          {props.clientHost ? (
            <p>
              Elle est publiée par le site : <strong>{props.clientHost}</strong>{' '}
              <span class="hint">(vérifié : sa description vient de ce site)</span>
            </p>
          ) : null}
          <p>
            Votre réponse sera envoyée à : <strong>{props.redirectHost}</strong>
          </p>
          <p>Elle pourra chercher des stages et voir leurs places et leurs prix, comme tout le monde.</p>
          {props.requested.length > 0 ? (
            <fieldset>
              <legend>Elle demande aussi à pouvoir (décochez ce que vous refusez)</legend>
              {props.requested.map((scope) => (
                <div class="check">
                  <input type="checkbox" id={`scope-${scope}`} name="scope" value={scope} checked />
                  <label for={`scope-${scope}`}>{SCOPE_TEXT[scope]}</label>
                </div>
              ))}
            </fieldset>
          ) : null}
          <NeverAndDecision pronoun="elle" />
        </form>
      )}
    </Layout>
  );
}

/** When no such request exists (a mistyped or old address). */
export function UnknownRequestPage({ site }: { site: SiteInfo }) {
  return (
    <Layout site={site} title="Demande introuvable" description="Cette demande de connexion n’existe pas" noindex>
      <h1>Demande introuvable</h1>
      <p>
        Cette adresse ne correspond à aucune demande de connexion d’une application. Retournez dans votre application et
        recommencez la connexion.
      </p>
    </Layout>
  );
}

/**
 * An authorization request refused before its redirect URI could be trusted (RFC 6749 §4.1.2.1):
 * the person is told here, and nothing is sent to the application.
 */
export function authorizationErrorPage(config: Pick<Config, 'platformName' | 'publicBaseUrl'>, detail: string): string {
  const site = siteInfo(config);
  return renderPage(
    <Layout site={site} title="Demande de connexion invalide" description="Demande de connexion invalide" noindex>
      <h1>Demande de connexion invalide</h1>
      <p>
        L’application qui vous a envoyé ici a fait une demande que nous ne pouvons pas accepter, et nous ne pouvons pas
        lui renvoyer la réponse sans risque : rien ne lui a été envoyé. Signalez-le à son éditeur.
      </p>
      <p>
        Détail technique (en anglais) : <code>{detail}</code>
      </p>
    </Layout>,
  );
}
