import { Field, type FieldError } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { RETURN_PARAM } from './return-path.js';

/*
 * The sign-in pages. Never indexed nor cached (accounts/answers.ts); they show nothing of any
 * account, so that what they say is the same for every email.
 */

interface Notice {
  notice?: string | undefined;
}

function NoticeBox({ notice }: Notice) {
  return notice ? (
    <p class="notice" role="alert">
      {notice}
    </p>
  ) : null;
}

export function SignInPage(props: {
  site: SiteInfo;
  formToken: string;
  email?: string;
  error?: FieldError;
  notice?: string;
  /** A page of this site to come back to once signed in (return-path.ts). */
  returnPath?: string | undefined;
}) {
  return (
    <Layout site={props.site} title="Connexion" description="Se connecter à l’espace des centres" noindex>
      <h1>Connexion</h1>
      <NoticeBox notice={props.notice} />
      <p>
        Indiquez votre adresse e-mail : nous vous envoyons un lien de connexion, valable 15 minutes. Pas de mot de
        passe.
      </p>
      <form method="post" action="/connexion" noValidate>
        <input type="hidden" name="_csrf" value={props.formToken} />
        {props.returnPath ? <input type="hidden" name={RETURN_PARAM} value={props.returnPath} /> : null}
        <Field
          name="email"
          label="Adresse e-mail"
          error={props.error}
          input={{ type: 'email', value: props.email ?? '', autocomplete: 'email', required: true, inputMode: 'email' }}
        />
        <button type="submit">Recevoir un lien de connexion</button>
      </form>
    </Layout>
  );
}

export function LinkSentPage({ site, mail }: { site: SiteInfo; mail: boolean }) {
  return (
    <Layout site={site} title="Vérifiez vos e-mails" description="Un lien de connexion a été envoyé" noindex>
      <h1>Vérifiez vos e-mails</h1>
      {mail ? (
        <p>
          Si cette adresse peut se connecter, un lien de connexion vient d’y être envoyé. Il est valable 15 minutes et
          ne sert qu’une fois. Pensez à regarder dans les courriers indésirables.
        </p>
      ) : (
        <p>
          Ce service n’envoie pas d’e-mails (aucun serveur d’envoi n’est configuré) : demandez un lien de connexion à
          l’exploitant du service.
        </p>
      )}
      <p>
        <a href="/connexion">Utiliser une autre adresse</a>
      </p>
    </Layout>
  );
}

/** The page a link opens: a button that signs in, so that a mail scanner following links spends nothing. */
export function LinkPage({
  site,
  formToken,
  action,
  notice,
}: { site: SiteInfo; formToken: string; action: string } & Notice) {
  return (
    <Layout site={site} title="Se connecter" description="Confirmer la connexion" noindex>
      <h1>Se connecter</h1>
      <NoticeBox notice={notice} />
      <form method="post" action={action}>
        <input type="hidden" name="_csrf" value={formToken} />
        <button type="submit">Me connecter</button>
      </form>
    </Layout>
  );
}

export function LinkInvalidPage({ site, message }: { site: SiteInfo; message: string }) {
  return (
    <Layout site={site} title="Lien de connexion invalide" description="Ce lien ne permet plus de se connecter" noindex>
      <h1>Ce lien ne permet plus de se connecter</h1>
      <p>{message}</p>
      <p>
        <a href="/connexion">Demander un nouveau lien</a>
      </p>
    </Layout>
  );
}
