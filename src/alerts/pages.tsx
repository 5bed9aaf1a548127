import { Field, type FieldError } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';

/** Where the alert form posts. */
export const ALERT_FORM_PATH = '/alertes';

export interface AlertFormProps {
  /** What the alert watches, as hidden fields: `sessionId`, or the search's filters. */
  fields: Record<string, string>;
  email?: string | undefined;
  error?: FieldError | undefined;
  /** The heading's level: a section of a page (h2), or the page itself (h1). */
  heading: 'h1' | 'h2';
  /** What the alert would watch, in words, when the page does not show it already. */
  about?: string | undefined;
}

/** "Prévenez-moi": an email field and a button, on a full session's page or under a search's results. */
export function AlertForm(props: AlertFormProps) {
  const session = 'sessionId' in props.fields;
  const Heading = props.heading;
  const title = session ? 'Prévenez-moi si une place se libère' : 'Prévenez-moi des nouvelles sessions';
  return (
    <section class="card" aria-labelledby="alerte">
      <Heading id="alerte">{title}</Heading>
      {props.about ? <p>Cette alerte porte sur {props.about}.</p> : null}
      <p>
        {session
          ? 'Laissez votre adresse e-mail : nous vous écrivons dès qu’une place se libère sur ce stage, jusqu’à son début.'
          : 'Laissez votre adresse e-mail : nous vous écrivons quand un stage avec des places correspond à cette recherche, pendant 3 mois ou jusqu’à la date de fin choisie.'}{' '}
        Au plus un e-mail toutes les 6 heures. Premier arrivé, premier servi : l’e-mail ne réserve pas de place.
      </p>
      <form method="post" action={ALERT_FORM_PATH} noValidate>
        {Object.entries(props.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <Field
          name="email"
          label="Adresse e-mail"
          error={props.error}
          input={{ type: 'email', value: props.email ?? '', autocomplete: 'email', required: true, inputMode: 'email' }}
        />
        <button type="submit">Me prévenir</button>
      </form>
      <p class="hint">Un e-mail de confirmation vous est d’abord envoyé : rien d’autre avant que vous confirmiez.</p>
    </section>
  );
}

/** The alert form again, on a page of its own, when what was sent must be corrected. */
export function AlertFormPage(
  props: Omit<AlertFormProps, 'heading'> & {
    site: SiteInfo;
    notice?: string | undefined;
  },
) {
  const { site, notice, ...form } = props;
  return (
    <Layout
      site={site}
      title={`${form.error ? 'Erreur : ' : ''}Créer une alerte`}
      description="Être prévenu par e-mail"
      noindex
    >
      {notice ? (
        <p class="notice" role="alert">
          {notice}
        </p>
      ) : null}
      <AlertForm {...form} heading="h1" />
      <p>
        <a href={form.fields.sessionId ? `/stages/${form.fields.sessionId}` : '/'}>
          {form.fields.sessionId ? 'Retour au stage' : 'Retour à la recherche'}
        </a>
      </p>
    </Layout>
  );
}

/** A page of a title, a few paragraphs and a way on. */
export function AlertMessagePage({
  site,
  title,
  lines,
  back = { href: '/', text: 'Chercher un stage' },
}: {
  site: SiteInfo;
  title: string;
  lines: string[];
  back?: { href: string; text: string };
}) {
  return (
    <Layout site={site} title={title} description={title} noindex>
      <h1>{title}</h1>
      {lines.map((line) => (
        <p>{line}</p>
      ))}
      <p>
        <a href={back.href}>{back.text}</a>
      </p>
    </Layout>
  );
}

/** A link's page: one button that does what the link is for (a mail scanner fetching the link does nothing). */
export function AlertButtonPage({
  site,
  title,
  text,
  action,
  button,
  hidden,
  notice,
}: {
  site: SiteInfo;
  title: string;
  text: string;
  action: string;
  button: string;
  hidden: Record<string, string>;
  notice?: string | undefined;
}) {
  return (
    <Layout site={site} title={title} description={title} noindex>
      <h1>{title}</h1>
      {notice ? (
        <p class="notice" role="alert">
          {notice}
        </p>
      ) : null}
      <p>{text}</p>
      <form method="post" action={action}>
        {Object.entries(hidden).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit">{button}</button>
      </form>
    </Layout>
  );
}
