import type { SessionEntry } from '../../catalogue/read-model.js';
import { SessionList } from '../../web/components.js';
import { described, Field, type FieldError, FieldMessage } from '../../web/field.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import type { EligibilityAnswer } from './schemas.js';

export const ELIGIBILITY_PATH = '/peut-on-faire-un-stage';

/** The form as typed: every value text, kept when the page comes back with an error. */
export type FormValues = Partial<Record<FormField, string>>;

export const FORM_FIELDS = [
  'lastCourseEndedOn',
  'letter48nReceivedOn',
  'probationStartedOn',
  'accompaniedDriving',
  'courtOrdered',
  'pointsLeft',
  'letter48si',
  'near',
] as const;
export type FormField = (typeof FORM_FIELDS)[number];

export interface EligibilityPageProps {
  site: SiteInfo;
  formToken: string;
  values: FormValues;
  errors: FieldError[];
  /** A refusal not tied to one field (the form's security check). */
  notice?: string | undefined;
  answer?: EligibilityAnswer | undefined;
  /** The answer's sessions as the catalogue holds them, for the site's usual list. */
  sessions?: readonly SessionEntry[] | undefined;
}

const VERDICT: Record<EligibilityAnswer['givesPoints'], string> = {
  yes: 'Oui',
  no: 'Non',
  uncertain: 'Incertain',
};

const STATUS: Record<EligibilityAnswer['rules'][number]['status'], string> = {
  applies: 'Règle qui s’applique',
  uncertain: 'Cas incertain',
  info: 'Bon à savoir',
};

function Check({ name, label, checked }: { name: FormField; label: string; checked: boolean }) {
  return (
    <div class="check">
      <input id={name} name={name} type="checkbox" value="true" checked={checked} />
      <label for={name}>{label}</label>
    </div>
  );
}

function Answer({ answer, sessions }: { answer: EligibilityAnswer; sessions: readonly SessionEntry[] }) {
  return (
    <section aria-labelledby="reponse" class="card">
      <h2 id="reponse">Réponse : {VERDICT[answer.givesPoints]}</h2>
      <p class="lead">{answer.summary}</p>
      <h3>Les règles, et d’où elles viennent</h3>
      <ul class="rules">
        {answer.rules.map((rule) => (
          <li>
            <strong>{STATUS[rule.status]} :</strong> {rule.text}{' '}
            <span class="hint">
              Source :{' '}
              {rule.sources.map((s, i) => (
                <>
                  {i > 0 ? ' ; ' : ''}
                  <a href={s.url}>{s.title}</a>
                </>
              ))}
            </span>
          </li>
        ))}
      </ul>
      <p class="hint">
        Cette réponse applique les textes à ce que vous avez indiqué ; elle ne remplace pas votre relevé de points ni
        l’avis de la préfecture. Rien de ce que vous avez saisi n’est enregistré.
      </p>
      {answer.near !== undefined ? (
        <>
          <h3>Des stages qui conviennent</h3>
          {sessions.length ? (
            <SessionList entries={sessions} />
          ) : (
            <p>Aucun stage avec des places ne convient près de ce lieu pour l’instant.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

/** "Can I do a course, and by when?": the form, and the answer under it once sent. */
export function EligibilityPage(props: EligibilityPageProps) {
  const { values: v, errors } = props;
  const e = (f: FormField) => errors.find((err) => err.field === f);
  return (
    <Layout
      site={props.site}
      title={props.answer ? 'Votre réponse : pouvez-vous faire un stage ?' : 'Puis-je faire un stage, et avant quand ?'}
      description="Un stage vous rendrait-il des points, combien, à partir de quand, et avant quelle date devez-vous le faire ? Réponse selon le Code de la route, avec ses sources."
      canonicalPath={ELIGIBILITY_PATH}
      noindex={props.answer !== undefined || errors.length > 0}
    >
      <h1>Puis-je faire un stage, et avant quand ?</h1>
      <p class="lead">
        Indiquez ce que vous savez : nous vous disons si un stage vous rend des points, combien au plus, à partir de
        quand, et la date limite s’il est obligatoire. Tous les champs sont facultatifs.
      </p>
      {props.notice ? (
        <div class="errors" role="alert">
          <p>{props.notice}</p>
        </div>
      ) : null}
      {errors.length ? (
        <div class="errors" role="alert">
          <h2>Quelques réponses sont à corriger</h2>
          <ul>
            {errors.map((err) => (
              <li>
                <a href={`#${err.field}`}>{err.message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {/* On a phone, the answer comes first; the form below it can be changed and sent again. */}
      {props.answer ? <Answer answer={props.answer} sessions={props.sessions ?? []} /> : null}
      {props.answer ? <h2>Changer vos réponses</h2> : null}
      <form class="card area-form" method="post" action={ELIGIBILITY_PATH} novalidate>
        <input type="hidden" name="formToken" value={props.formToken} />
        <Field
          name="pointsLeft"
          label="Points qu’il vous reste"
          hint={{ text: 'de 0 à 12, sur votre relevé' }}
          error={e('pointsLeft')}
          input={{ type: 'text', inputmode: 'numeric', value: v.pointsLeft ?? '' }}
        />
        <Field
          name="lastCourseEndedOn"
          label="Dernier stage qui vous a rendu des points"
          hint={{ text: 'date de son deuxième jour' }}
          error={e('lastCourseEndedOn')}
          input={{ type: 'date', value: v.lastCourseEndedOn ?? '' }}
        />
        <Field
          name="letter48nReceivedOn"
          label="Lettre 48N (stage obligatoire)"
          hint={{ text: 'date où vous l’avez reçue' }}
          error={e('letter48nReceivedOn')}
          input={{ type: 'date', value: v.letter48nReceivedOn ?? '' }}
        />
        <Field
          name="probationStartedOn"
          label="Permis probatoire"
          hint={{ text: 'date d’obtention du permis' }}
          error={e('probationStartedOn')}
          input={{ type: 'date', value: v.probationStartedOn ?? '' }}
        />
        <Check
          name="accompaniedDriving"
          label="Permis obtenu après la conduite accompagnée (apprentissage anticipé)"
          checked={v.accompaniedDriving === 'true'}
        />
        <FieldMessage error={e('accompaniedDriving')} />
        <Check
          name="courtOrdered"
          label="Le stage m’est imposé par la justice (composition pénale, peine complémentaire)"
          checked={v.courtOrdered === 'true'}
        />
        <Check name="letter48si" label="J’ai reçu la lettre 48SI (permis invalidé)" checked={v.letter48si === 'true'} />
        <FieldMessage error={e('letter48si')} />
        <div>
          <label for="near">
            Ville ou code postal{' '}
            <span class="hint" id="near-hint">
              pour voir des stages qui conviennent
            </span>
          </label>
          <input
            id="near"
            name="near"
            type="text"
            autocomplete="address-level2"
            value={v.near ?? ''}
            {...described(e('near'), 'near-hint')}
          />
          <FieldMessage error={e('near')} />
        </div>
        <div>
          <button type="submit">Voir la réponse</button>
        </div>
      </form>
    </Layout>
  );
}
