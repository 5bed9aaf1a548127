import type { SessionEntry } from '../catalogue/read-model.js';
import { type FieldError, type FieldName, type FormState, REASONS } from '../reservations/form.js';
import { frenchPrice } from '../web/format.js';

export interface BookingProps {
  entry: SessionEntry;
  /** The visitor's anti-forgery token (see reservations/form-guard.ts). */
  formToken: string;
  /** What was typed and what is wrong with it, after a refused submission. */
  state?: FormState | undefined;
  /** A message about the whole submission (an expired form, say), shown above the fields. */
  notice?: string | undefined;
  /** Whether a confirmation email goes out (SMTP_URL is set). */
  mailEnabled: boolean;
}

/** Where the form is posted. */
export function reservationPath(sessionId: string): string {
  return `/stages/${sessionId}/reservation`;
}

function errorOf(state: FormState | undefined, field: FieldName): FieldError | undefined {
  return state?.errors.find((e) => e.field === field);
}

/** An input's error message, tied to it by aria-describedby. */
function FieldMessage({ error }: { error: FieldError | undefined }) {
  return error ? (
    <span class="field-error" id={`${error.field}-error`}>
      {error.message}
    </span>
  ) : null;
}

function described(error: FieldError | undefined, hint?: string) {
  const ids = [hint, error ? `${error.field}-error` : undefined].filter(Boolean).join(' ');
  return {
    ...(error ? { 'aria-invalid': 'true' as const } : {}),
    ...(ids ? { 'aria-describedby': ids } : {}),
  };
}

/**
 * The booking step of the session page, for open sessions only (full, past and cancelled ones
 * show their alternatives instead): one place per reservation, posted without JavaScript.
 */
export function BookingSection({ entry, formToken, state, notice, mailEnabled }: BookingProps) {
  const s = entry.view;
  const v = state?.values ?? {};
  const e = (f: FieldName) => errorOf(state, f);
  const errors = state?.errors ?? [];
  return (
    <section class="card" aria-labelledby="reservation" id="reserver">
      <h2 id="reservation">Réserver une place</h2>
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
      <p>
        Une place pour vous, au centre <strong>{s.centre.name}</strong>, au prix de {frenchPrice(s.priceEuros)}. Le
        paiement se fait auprès du centre ; la place est retenue dès l’envoi du formulaire.
      </p>
      {/* The fragment brings a refused form's page back to the form and its errors, not to the top. */}
      <form class="booking" method="post" action={`${reservationPath(s.id)}#reserver`} novalidate>
        <input type="hidden" name="formToken" value={formToken} />
        <div class="row">
          <div>
            <label for="firstName">Prénom</label>
            <input
              id="firstName"
              name="firstName"
              type="text"
              autocomplete="given-name"
              required
              maxlength={60}
              value={v.firstName ?? ''}
              {...described(e('firstName'))}
            />
            <FieldMessage error={e('firstName')} />
          </div>
          <div>
            <label for="lastName">Nom</label>
            <input
              id="lastName"
              name="lastName"
              type="text"
              autocomplete="family-name"
              required
              maxlength={60}
              value={v.lastName ?? ''}
              {...described(e('lastName'))}
            />
            <FieldMessage error={e('lastName')} />
          </div>
        </div>
        <div>
          <label for="email">
            Adresse e-mail{' '}
            <span class="hint" id="email-hint">
              {mailEnabled ? 'la confirmation vous y est envoyée' : 'le centre l’utilise pour vous écrire'}
            </span>
          </label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="email"
            inputmode="email"
            required
            maxlength={254}
            value={v.email ?? ''}
            {...described(e('email'), 'email-hint')}
          />
          <FieldMessage error={e('email')} />
        </div>
        <div>
          <label for="phone">
            Téléphone mobile{' '}
            <span class="hint" id="phone-hint">
              par exemple 06 12 34 56 78 ou +262 692 12 34 56
            </span>
          </label>
          <input
            id="phone"
            name="phone"
            type="tel"
            autocomplete="tel"
            inputmode="tel"
            required
            maxlength={25}
            value={v.phone ?? ''}
            {...described(e('phone'), 'phone-hint')}
          />
          <FieldMessage error={e('phone')} />
        </div>
        <fieldset id="reason" {...described(e('reason'))}>
          <legend>Motif du stage</legend>
          {(Object.keys(REASONS) as (keyof typeof REASONS)[]).map((key) => (
            <div class="check">
              <input type="radio" id={`reason-${key}`} name="reason" value={key} checked={v.reason === key} />
              <label for={`reason-${key}`}>{REASONS[key]}</label>
            </div>
          ))}
          <FieldMessage error={e('reason')} />
        </fieldset>
        <div class="check">
          <input
            type="checkbox"
            id="consent"
            name="consent"
            value="yes"
            required
            checked={v.consent === 'yes'}
            {...described(e('consent'))}
          />
          <label for="consent">
            J’ai pris connaissance des conditions du centre et je demande cette réservation, pour laquelle mes
            coordonnées lui sont transmises.
          </label>
        </div>
        <FieldMessage error={e('consent')} />
        <p class="hint" id="donnees">
          Vos nom, e-mail, téléphone et motif servent à cette réservation seulement : ils sont transmis au centre{' '}
          {s.centre.name}, qui organise le stage, et à personne d’autre ; ils sont effacés après le stage. Vous pouvez y
          accéder, les corriger ou les faire effacer en écrivant au centre, et adresser une réclamation à la CNIL.
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
    </section>
  );
}
