import { Field, type FieldError } from '../web/field.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import type { TrainersForm } from './trainers.js';

/** The edit form's fields as typed (strings), to show them again when refused. */
export interface EditSessionForm extends TrainersForm {
  price: string;
  startTime: string;
  endTime: string;
  capacity: string;
  declaredOn: string;
  /** The ETag of the session the form was filled from: a stale form is refused, not applied. */
  version: string;
  /** When the trainers were last written, as the form read them ('' never). */
  trainersVersion: string;
}

export interface EditedSession {
  id: string;
  day1: string;
  day2: string;
  courseNumber: string;
  capacity: number;
  spotsAvailable: number;
  heldHere: number;
}

export const editPath = (id: string) => `/espace-centre/seances/${id}/modifier`;

/** One session's price, times, group size and prefecture declaration, for its centre. */
export function EditSessionPage(props: {
  site: SiteInfo;
  session: EditedSession;
  centreName: string;
  formToken: string;
  form: EditSessionForm;
  errors: FieldError[];
  problem?: string | undefined;
}) {
  const { session: s, form, errors } = props;
  const error = (field: string) => errors.find((e) => e.field === field);
  const title = `Modifier le stage du ${frenchDate(s.day1)}`;
  return (
    <Layout site={props.site} title={title} description="Modifier un stage" noindex>
      <p>
        <a href={`/espace-centre/seances/${s.id}`}>← Le stage</a> · <a href="/espace-centre">Espace centre</a>
      </p>
      <h1>{title}</h1>
      <p>
        {props.centreName} · {frenchDate(s.day1)} et {frenchDate(s.day2)} · n° {s.courseNumber}
      </p>
      <p>
        {s.spotsAvailable} place{s.spotsAvailable > 1 ? 's' : ''} libre{s.spotsAvailable > 1 ? 's' : ''} sur{' '}
        {s.capacity} · {s.heldHere} réservation{s.heldHere > 1 ? 's' : ''} ici
      </p>
      {props.problem || errors.length > 0 ? (
        <div class="errors" role="alert" id="erreurs">
          <h2>Le stage n’a pas été modifié</h2>
          {props.problem ? <p>{props.problem}</p> : null}
          {errors.length > 0 ? (
            <ul>
              {errors.map((e) => (
                <li>
                  <a href={`#${e.field}`}>{e.message}</a>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <form class="booking" method="post" action={editPath(s.id)} noValidate>
        <input type="hidden" name="_csrf" value={props.formToken} />
        <input type="hidden" name="version" value={form.version} />
        <input type="hidden" name="trainersVersion" value={form.trainersVersion} />
        <Field
          name="price"
          label="Prix (€)"
          hint={{ text: 'par exemple 229 ou 229,50', id: 'price-hint' }}
          error={error('price')}
          input={{ type: 'text', value: form.price, inputMode: 'decimal', required: true }}
        />
        <div class="row">
          <Field
            name="startTime"
            label="Début"
            hint={{ text: 'les deux jours', id: 'startTime-hint' }}
            error={error('startTime')}
            input={{ type: 'time', value: form.startTime }}
          />
          <Field
            name="endTime"
            label="Fin"
            hint={{ text: 'les deux jours', id: 'endTime-hint' }}
            error={error('endTime')}
            input={{ type: 'time', value: form.endTime }}
          />
        </div>
        <Field
          name="capacity"
          label="Taille du groupe"
          hint={{
            text: `6 à 20 personnes, au moins ${s.heldHere} (réservations faites ici) ; les places libres suivent`,
            id: 'capacity-hint',
          }}
          error={error('capacity')}
          input={{ type: 'number', value: form.capacity, min: 6, max: 20, inputMode: 'numeric' }}
        />
        <Field
          name="declaredOn"
          label="Déclaré en préfecture le"
          hint={{
            text: 'obligatoire pour un stage qui commence dans moins de 10 jours : au moins 10 jours avant ; vide : pas encore déclaré',
            id: 'declaredOn-hint',
          }}
          error={error('declaredOn')}
          input={{ type: 'date', value: form.declaredOn }}
        />
        <TrainersFields form={form} errors={errors} />
        <p>
          <button type="submit">Enregistrer</button>
        </p>
      </form>
    </Layout>
  );
}

/** The session's two trainers, for the prefecture's declaration: never published. */
export function TrainersFields({ form, errors }: { form: TrainersForm; errors: FieldError[] }) {
  const error = (field: string) => errors.find((e) => e.field === field);
  return (
    <fieldset>
      <legend>Animateurs du stage (pour la déclaration en préfecture, jamais publiés)</legend>
      <Field
        name="psychologistName"
        label="Psychologue"
        hint={{ text: 'prénom et nom', id: 'psychologistName-hint' }}
        error={error('psychologistName')}
        input={{ type: 'text', value: form.psychologistName, autocomplete: 'off', maxLength: 100 }}
      />
      <Field
        name="psychologistNumber"
        label="N° ADELI ou RPPS du psychologue"
        hint={{ text: 'facultatif : 9 ou 11 chiffres', id: 'psychologistNumber-hint' }}
        error={error('psychologistNumber')}
        input={{ type: 'text', value: form.psychologistNumber, inputMode: 'numeric', autocomplete: 'off' }}
      />
      <Field
        name="bafmName"
        label="Formateur titulaire du BAFM"
        hint={{ text: 'prénom et nom', id: 'bafmName-hint' }}
        error={error('bafmName')}
        input={{ type: 'text', value: form.bafmName, autocomplete: 'off', maxLength: 100 }}
      />
      <Field
        name="bafmNumber"
        label="N° du BAFM"
        hint={{ text: 'facultatif', id: 'bafmNumber-hint' }}
        error={error('bafmNumber')}
        input={{ type: 'text', value: form.bafmNumber, autocomplete: 'off', maxLength: 40 }}
      />
    </fieldset>
  );
}
