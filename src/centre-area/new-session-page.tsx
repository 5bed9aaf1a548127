import { SubmissionField } from '../accounts/form-submissions.js';
import type { Membership } from '../accounts/users.js';
import { Field, type FieldError } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { TrainersFields } from './edit-session-page.js';
import { NO_TRAINERS, type TrainersForm } from './trainers.js';

/** What the form holds, as typed (strings), to show it again when refused. */
export interface NewSessionForm extends TrainersForm {
  centreId: string;
  day1: string;
  repeat: string;
  every: string;
  startTime: string;
  endTime: string;
  price: string;
  capacity: string;
  spots: string;
  declaredOn: string;
}

export const EMPTY_FORM: NewSessionForm = {
  centreId: '',
  day1: '',
  repeat: '1',
  every: '2',
  startTime: '08:30',
  endTime: '16:30',
  price: '',
  capacity: '20',
  spots: '',
  declaredOn: '',
  ...NO_TRAINERS,
};

export function NewSessionPage(props: {
  site: SiteInfo;
  memberships: Membership[];
  formToken: string;
  /** The form's one-time id (accounts/form-submissions.tsx). */
  submissionId: string;
  form: NewSessionForm;
  errors: FieldError[];
  problem?: string | undefined;
}) {
  const { form, errors } = props;
  const error = (field: string) => errors.find((e) => e.field === field);
  return (
    <Layout site={props.site} title="Nouveau stage" description="Programmer un stage" noindex>
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Nouveau stage</h1>
      {props.problem || errors.length > 0 ? (
        <div class="errors" role="alert" id="erreurs">
          <h2>Le stage n’a pas été créé</h2>
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
      <form class="booking" method="post" action="/espace-centre/seances/nouvelle" noValidate>
        <input type="hidden" name="_csrf" value={props.formToken} />
        <SubmissionField id={props.submissionId} />
        <div>
          <label for="centreId">Centre</label>
          <select id="centreId" name="centreId">
            {props.memberships.map((m) => (
              <option value={m.centreId} selected={m.centreId === form.centreId}>
                {m.centreName}
              </option>
            ))}
          </select>
        </div>
        <Field
          name="day1"
          label="Premier jour"
          hint={{ text: 'le stage dure deux jours de suite', id: 'day1-hint' }}
          error={error('day1')}
          input={{ type: 'date', value: form.day1, required: true }}
        />
        <div class="row">
          <Field
            name="repeat"
            label="Nombre de dates"
            hint={{ text: '1 à 12', id: 'repeat-hint' }}
            error={error('repeat')}
            input={{ type: 'number', value: form.repeat, min: 1, max: 12, inputMode: 'numeric' }}
          />
          <Field
            name="every"
            label="Toutes les … semaines"
            error={error('every')}
            input={{ type: 'number', value: form.every, min: 1, max: 8, inputMode: 'numeric' }}
          />
        </div>
        <div class="row">
          <Field
            name="startTime"
            label="Début"
            error={error('startTime')}
            input={{ type: 'time', value: form.startTime }}
          />
          <Field name="endTime" label="Fin" error={error('endTime')} input={{ type: 'time', value: form.endTime }} />
        </div>
        <div class="row">
          <Field
            name="price"
            label="Prix (€)"
            error={error('price')}
            input={{ type: 'text', value: form.price, inputMode: 'decimal', required: true }}
          />
          <Field
            name="capacity"
            label="Taille du groupe"
            hint={{ text: '6 à 20 personnes', id: 'capacity-hint' }}
            error={error('capacity')}
            input={{ type: 'number', value: form.capacity, min: 6, max: 20, inputMode: 'numeric' }}
          />
        </div>
        <Field
          name="spots"
          label="Places libres"
          hint={{ text: 'vide : toutes', id: 'spots-hint' }}
          error={error('spots')}
          input={{ type: 'number', value: form.spots, min: 0, max: 20, inputMode: 'numeric' }}
        />
        <Field
          name="declaredOn"
          label="Déclaré en préfecture le"
          hint={{
            text: 'obligatoire pour un stage qui commence dans moins de 10 jours : au moins 10 jours avant',
            id: 'declaredOn-hint',
          }}
          error={error('declaredOn')}
          input={{ type: 'date', value: form.declaredOn }}
        />
        <TrainersFields form={form} errors={errors} />
        <p>
          <button type="submit">Créer</button>
        </p>
      </form>
    </Layout>
  );
}
