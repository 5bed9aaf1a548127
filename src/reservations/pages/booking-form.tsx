import { formatPrice } from '../../catalogue/price.js';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { described, Field, FieldMessage, type FieldProps } from '../../web/field.js';
import { zoneNote } from '../../web/format.js';
import { KeptMarkup, kept } from '../../web/kept-markup.js';
import { CANCELLATION_TERMS_TITLE, CancellationTerms } from '../cancellation-terms.js';
import { type FieldName, type FormState, REASONS } from '../form.js';

/**
 * The reservation form as a page shows it: after a refusal, what was typed and why. It carries no
 * per-visitor token, so that the session page is the same for everyone and a shared cache may keep it
 * (its posts are checked by origin, see web/form-guard.ts).
 */
export interface BookingState {
  /** What was typed and what is wrong with it, after a refused submission. */
  state?: FormState | undefined;
  /** A message about the whole submission (an expired form, say), shown above the fields. */
  notice?: string | undefined;
  /** Whether a confirmation email goes out (SMTP_URL is set). */
  mailEnabled: boolean;
  /**
   * A place an agent holds for this person (the hold's completeUrl): the form books that place,
   * which is kept for them until `until` ("14 h 15", the session's time zone).
   */
  hold?: { id: string; until: string } | undefined;
}

export interface BookingProps extends BookingState {
  entry: SessionEntry;
}

/** Where the form is posted. */
export function reservationPath(sessionId: string): string {
  return `/stages/${sessionId}/reservation`;
}

function errorOf(state: FormState | undefined, field: FieldName) {
  return state?.errors.find((err) => err.field === field);
}

/** Longest text each input takes; the server checks again (form.ts). */
const MAX_LENGTH = { firstName: 60, lastName: 60, email: 254, phone: 25 } as const;

/** One of the person's details: a required input, filled again with what was typed after a refusal. */
function PersonInput({
  state,
  name,
  label,
  hint,
  kind,
}: {
  state: FormState | undefined;
  name: keyof typeof MAX_LENGTH;
  label: string;
  hint?: FieldProps['hint'];
  /** What the browser may offer to fill it with, and which keyboard. */
  kind: FieldProps['input'];
}) {
  return (
    <Field
      name={name}
      label={label}
      hint={hint}
      error={errorOf(state, name)}
      input={{ ...kind, required: true, maxlength: MAX_LENGTH[name], value: state?.values[name] ?? '' }}
    />
  );
}

/** Why the last submission was refused: a notice about the whole of it, and each field's error. */
function Refusal({ notice, errors }: { notice: string | undefined; errors: FormState['errors'] }) {
  return (
    <>
      {notice ? (
        <div class="errors" role="alert">
          <p>{notice}</p>
        </div>
      ) : null}
      {errors.length ? (
        <div class="errors" role="alert" id="erreurs">
          <h3>La réservation n’a pas pu être faite</h3>
          <ul>
            {errors.map((err) => (
              <li>
                <a href={`#${err.field}`}>{err.message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

/** The reason for the course, one radio button each. */
function ReasonChoice({ state }: { state: FormState | undefined }) {
  return (
    <fieldset id="reason" {...described(errorOf(state, 'reason'))}>
      <legend>Motif du stage</legend>
      {(Object.keys(REASONS) as (keyof typeof REASONS)[]).map((key) => (
        <div class="check">
          <input type="radio" id={`reason-${key}`} name="reason" value={key} checked={state?.values.reason === key} />
          <label for={`reason-${key}`}>{REASONS[key]}</label>
        </div>
      ))}
      <FieldMessage error={errorOf(state, 'reason')} />
    </fieldset>
  );
}

/** The request itself, and the consent to the centre receiving the details. */
function Consent({ state }: { state: FormState | undefined }) {
  return (
    <>
      <div class="check">
        <input
          type="checkbox"
          id="consent"
          name="consent"
          value="yes"
          required
          checked={state?.values.consent === 'yes'}
          {...described(errorOf(state, 'consent'))}
        />
        <label for="consent">
          J’ai pris connaissance des conditions du centre et je demande cette réservation, pour laquelle mes coordonnées
          lui sont transmises.
        </label>
      </div>
      <FieldMessage error={errorOf(state, 'consent')} />
    </>
  );
}

/**
 * The booking step of the session page, for open sessions only (full, past and cancelled ones
 * show their alternatives instead): one place per reservation, posted without JavaScript.
 */
export function BookingSection(props: BookingProps) {
  const attrs = { class: 'card', 'aria-labelledby': 'reservation', id: 'reserver' };
  // A blank form (nothing refused, no place held) is the same for everyone who opens the page: kept per entry.
  if (!props.state && !props.notice && !props.hold)
    return kept({
      tag: 'section',
      attrs,
      cache: blankForms,
      of: props.entry,
      variant: props.mailEnabled ? 'mail' : '',
      render: () => <BookingContent {...props} />,
    });
  return (
    <section {...attrs}>
      <BookingContent {...props} />
    </section>
  );
}

// ~8 KB a session: the forms of the sessions most opened.
const blankForms = new KeptMarkup<SessionEntry>(2 * 1024 * 1024);

/** The booking section's content: the offer, the centre's terms and the form. */
function BookingContent({ entry, state, notice, mailEnabled, hold }: BookingProps) {
  const s = entry.view;
  const zone = zoneNote(entry.centre.timeZone);
  return (
    <>
      <h2 id="reservation">Réserver une place</h2>
      <Refusal notice={notice} errors={state?.errors ?? []} />
      {hold ? (
        <p class="notice" role="status">
          Une place de ce stage est mise de côté pour vous jusqu’à <strong>{hold.until}</strong>
          {zone ? ` (${zone})` : ''} : réservez-la avant avec ce formulaire. Passé ce délai, elle est remise en vente.
        </p>
      ) : null}
      <p>
        Une place pour vous, au centre <strong>{s.centre.name}</strong>, au prix de {formatPrice(s.priceEuros)}. Le
        paiement se fait auprès du centre ; la place est retenue dès l’envoi du formulaire.
      </p>
      <h3 id="conditions">{CANCELLATION_TERMS_TITLE}</h3>
      <CancellationTerms terms={entry.centre.record.cancellationTerms} />
      {/* The fragment brings a refused form's page back to the form and its errors, not to the top. */}
      <form class="booking" method="post" action={`${reservationPath(s.id)}#reserver`} novalidate>
        {hold ? <input type="hidden" name="hold" value={hold.id} /> : null}
        <div class="row">
          <PersonInput
            state={state}
            name="firstName"
            label="Prénom"
            kind={{ type: 'text', autocomplete: 'given-name' }}
          />
          <PersonInput state={state} name="lastName" label="Nom" kind={{ type: 'text', autocomplete: 'family-name' }} />
        </div>
        <PersonInput
          state={state}
          name="email"
          label="Adresse e-mail"
          hint={{
            id: 'email-hint',
            text: mailEnabled ? 'la confirmation vous y est envoyée' : 'le centre l’utilise pour vous écrire',
          }}
          kind={{ type: 'email', autocomplete: 'email', inputmode: 'email' }}
        />
        <PersonInput
          state={state}
          name="phone"
          label="Téléphone mobile"
          hint={{ id: 'phone-hint', text: 'par exemple 06 12 34 56 78 ou +262 692 12 34 56' }}
          kind={{ type: 'tel', autocomplete: 'tel', inputmode: 'tel' }}
        />
        <ReasonChoice state={state} />
        <Consent state={state} />
        <p class="hint" id="donnees">
          Vos nom, e-mail, téléphone et motif servent à cette réservation seulement : ils sont transmis au centre{' '}
          {s.centre.name}, qui organise le stage, et à personne d’autre ; ils sont effacés après le stage. Vous pouvez
          les consulter, les télécharger ou les effacer depuis votre espace (« Mes données »), les faire corriger en
          écrivant au centre, et adresser une réclamation à la CNIL.
        </p>
        {/* Left empty by people (it is out of sight and out of the tab order); filled by form robots. */}
        <div class="hp" aria-hidden="true">
          <label for="website">Ne pas remplir ce champ</label>
          <input id="website" name="website" type="text" tabindex={-1} autocomplete="off" value="" />
        </div>
        <p>
          <button type="submit">Réserver ma place</button>
        </p>
      </form>
    </>
  );
}
