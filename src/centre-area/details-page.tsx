import type { Membership } from '../accounts/users.js';
import type { AdminCentre } from '../admin/response-schemas.js';
import { CANCELLATION_TERMS_MAX } from '../admin/schemas.js';
import { DEFAULT_CANCELLATION_TERMS } from '../reservations/cancellation-terms.js';
import { described, Field, type FieldError, FieldMessage } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';

/** The fields of the details form, as typed (text), by the admin API's names. */
export interface DetailsValues {
  address: string;
  postalCode: string;
  city: string;
  lat: string;
  lng: string;
  email: string;
  phone: string;
  cancellationTerms: string;
}

export const detailsPath = (centreId: string) => `/espace-centre/centres/${centreId}`;

export function detailsValuesOf(centre: AdminCentre): DetailsValues {
  return {
    address: centre.address,
    postalCode: centre.postalCode,
    city: centre.city,
    lat: String(centre.lat),
    lng: String(centre.lng),
    email: centre.email ?? '',
    phone: centre.phone ?? '',
    cancellationTerms: centre.cancellationTerms ?? '',
  };
}

export interface DetailsPageProps {
  site: SiteInfo;
  membership: Membership;
  formToken: string;
  centre: AdminCentre;
  /** The version (ETag) of the centre the form was filled from. */
  version: string;
  values: DetailsValues;
  errors?: FieldError[] | undefined;
  notice?: string | undefined;
  problem?: string | undefined;
}

/** The centre's details, its owner's: contact email and phone, address; what only the operator changes, shown. */
export function DetailsPage(props: DetailsPageProps) {
  const { membership: m, centre: c, values } = props;
  const errorOf = (field: string) => props.errors?.find((e) => e.field === field);
  return (
    <Layout
      site={props.site}
      title={`Coordonnées · ${m.centreName}`}
      description="Les coordonnées de votre centre"
      noindex
    >
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Coordonnées de {m.centreName}</h1>
      <Notices problem={props.problem} notice={props.notice} />
      <p>
        Elles sont servies aussitôt partout : la page du centre, l’API et les agents. L’e-mail reçoit les avis de
        réservation et n’est jamais publié ; le téléphone est donné aux personnes qui réservent.
      </p>
      {props.errors?.length ? (
        <div class="errors" role="alert">
          <p>Rien n’a été enregistré : corrigez ce qui est signalé.</p>
        </div>
      ) : null}
      <form method="post" action={detailsPath(m.centreId)} class="area-form">
        <input type="hidden" name="_csrf" value={props.formToken} />
        <input type="hidden" name="version" value={props.version} />
        <Field
          name="phone"
          label="Téléphone"
          error={errorOf('phone')}
          input={{ type: 'tel', autocomplete: 'tel', inputmode: 'tel', value: values.phone }}
        />
        <Field
          name="email"
          label="E-mail de contact"
          hint={{ text: 'Reçoit les avis de réservation ; jamais publié.', id: 'email-hint' }}
          error={errorOf('email')}
          input={{ type: 'email', autocomplete: 'email', inputmode: 'email', value: values.email }}
        />
        <Field
          name="address"
          label="Adresse (numéro et rue)"
          error={errorOf('address')}
          input={{ type: 'text', autocomplete: 'street-address', required: true, value: values.address }}
        />
        <Field
          name="postalCode"
          label="Code postal"
          hint={{ text: `Une commune du département ${c.deptCode}.`, id: 'postalCode-hint' }}
          error={errorOf('postalCode')}
          input={{
            type: 'text',
            autocomplete: 'postal-code',
            inputmode: 'numeric',
            required: true,
            value: values.postalCode,
          }}
        />
        <Field
          name="city"
          label="Ville"
          error={errorOf('city')}
          input={{ type: 'text', autocomplete: 'address-level2', required: true, value: values.city }}
        />
        <div>
          <label for="cancellationTerms">
            Conditions d’annulation et de remboursement{' '}
            <span class="hint" id="cancellationTerms-hint">
              Montrées avant la réservation, sur la réservation et dans l’e-mail de confirmation (
              {CANCELLATION_TERMS_MAX} caractères au plus). Laissées vides, les personnes lisent : «{' '}
              {DEFAULT_CANCELLATION_TERMS} »
            </span>
          </label>
          <textarea
            id="cancellationTerms"
            name="cancellationTerms"
            rows={6}
            maxlength={CANCELLATION_TERMS_MAX}
            {...described(errorOf('cancellationTerms'), 'cancellationTerms-hint')}
          >
            {values.cancellationTerms}
          </textarea>
          <FieldMessage error={errorOf('cancellationTerms')} />
        </div>
        <fieldset>
          <legend>Position sur la carte</legend>
          <p class="hint">
            Pour une nouvelle adresse, mettez les coordonnées du lieu (par exemple depuis une carte en ligne) : elles
            servent aux recherches « près de ».
          </p>
          <Field
            name="lat"
            label="Latitude"
            error={errorOf('lat')}
            input={{ type: 'text', inputmode: 'decimal', required: true, value: values.lat }}
          />
          <Field
            name="lng"
            label="Longitude"
            error={errorOf('lng')}
            input={{ type: 'text', inputmode: 'decimal', required: true, value: values.lng }}
          />
        </fieldset>
        <p>
          <button type="submit">Enregistrer</button>
        </p>
      </form>
      <h2>Ce que seul l’exploitant modifie</h2>
      <p>
        Nom : {c.name} · département : {c.deptCode} · numéro d’agrément : {c.agrementNumber} · adresse de la page :
        /centres/{c.slug}. Ils suivent l’agrément préfectoral : pour les changer, écrivez à l’exploitant du service.
      </p>
    </Layout>
  );
}
