import { AlertForm } from '../../alerts/pages.js';
import { canonicalDeptCode } from '../../catalogue/geography.js';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { Pager, SessionList } from '../../web/components.js';
import { described, Field, FieldMessage } from '../../web/field.js';
import { KeptMarkup, kept } from '../../web/kept-markup.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import { insertMarkup } from '../../web/page-bytes.js';
import { DEPARTMENT_LINKS, departmentOptions } from '../departments.js';
import { type FormField, type ParsedSearch, searchHref } from '../search-query.js';

export interface HomeProps {
  site: SiteInfo;
  search: ParsedSearch;
  entries: readonly SessionEntry[];
  hasNext: boolean;
  /** The same search on GET /api/stages. */
  apiHref: string;
  /** "Prévenez-moi des nouvelles sessions" under a search's results (a place searched, mail sent). */
  alert?: { fields: Record<string, string> } | undefined;
}

/**
 * WebMCP's declarative attributes (Chrome's WebMCP, declarative API): a browser agent sees the form
 * as a tool, fills it in the person's view and leaves the person to submit it. Not in Preact's
 * types, hence spread.
 */
const SEARCH_TOOL = {
  toolname: 'search_courses',
  tooldescription:
    'Search upcoming two-day driving-licence points-recovery courses (stages de récupération de points) in France by town or department, first-day dates and maximum price; the results page lists each session with its price, places left and booking page.',
};
const param = (description: string) => ({ toolparamdescription: description });

const SEARCH_FORM = {
  class: 'search card',
  method: 'get',
  action: '/',
  'aria-label': 'Rechercher un stage',
  ...SEARCH_TOOL,
};

// The form as filled in by a search without errors, kept by the values it shows (~8 KB a search:
// the list of departments is in it).
const keptForms = new KeptMarkup<string>(1024 * 1024);

/** The search form, filled in with the search's values and its errors. */
export function SearchForm({ search }: { search: ParsedSearch }) {
  if (search.errors.length > 0)
    return (
      <form {...SEARCH_FORM}>
        <SearchFields search={search} />
      </form>
    );
  const v = search.values;
  // Exactly what the form shows of the search (see SearchFields).
  const shown = [v.city ?? '', canonicalDeptCode(v.dept ?? ''), v.from ?? '', v.to ?? '', v.maxPrice ?? ''];
  return kept({
    tag: 'form',
    attrs: SEARCH_FORM,
    cache: keptForms,
    of: JSON.stringify([...shown, unavailableChecked(v)]),
    render: () => <SearchFields search={search} />,
  });
}

function unavailableChecked(v: ParsedSearch['values']): boolean {
  return v.includeUnavailable === 'true' || v.includeUnavailable === '1';
}

function SearchFields({ search }: { search: ParsedSearch }) {
  const v = search.values;
  const e = (f: FormField) => search.errors.find((err) => err.field === f);
  return (
    <>
      <div class="row">
        <Field
          name="city"
          label="Ville ou département"
          hint={{ text: 'par exemple Lyon, Saint-Étienne, Rhône, 69' }}
          error={e('city')}
          input={{
            type: 'text',
            value: v.city ?? '',
            autocomplete: 'address-level2',
            ...param('Town (part of its name), postal code, or department name or number, e.g. Lyon, 69100, Rhône.'),
          }}
        />
        <div>
          <label for="dept">Département</label>
          <select
            id="dept"
            name="dept"
            {...param('Department code, e.g. 69 or 2A; empty for all of France.')}
            {...described(e('dept'))}
            // Raw on purpose: constant markup rendered once by the same escaping renderer (departments.tsx)
            dangerouslySetInnerHTML={{ __html: insertMarkup(departmentOptions(canonicalDeptCode(v.dept ?? ''))) }}
          />
          <FieldMessage error={e('dept')} />
        </div>
      </div>
      <div class="row">
        <Field
          name="from"
          label="Du"
          hint={{ text: 'premier jour au plus tôt' }}
          error={e('from')}
          input={{ type: 'date', value: v.from ?? '', ...param('Earliest first day, YYYY-MM-DD.') }}
        />
        <Field
          name="to"
          label="Au"
          hint={{ text: 'premier jour au plus tard' }}
          error={e('to')}
          input={{ type: 'date', value: v.to ?? '', ...param('Latest first day, YYYY-MM-DD.') }}
        />
      </div>
      <div class="row">
        <Field
          name="maxPrice"
          label="Prix maximum"
          hint={{ text: 'en euros' }}
          error={e('maxPrice')}
          input={{ type: 'text', inputmode: 'decimal', value: v.maxPrice ?? '', ...param('Maximum price in euros.') }}
        />
        <div class="check">
          <input
            id="includeUnavailable"
            name="includeUnavailable"
            type="checkbox"
            value="true"
            {...param('Also list full sessions.')}
            checked={unavailableChecked(v)}
          />
          <label for="includeUnavailable">Afficher aussi les sessions complètes</label>
        </div>
      </div>
      <div>
        <button type="submit">Rechercher</button>
      </div>
    </>
  );
}

export function HomePage(props: HomeProps) {
  const { search } = props;
  const hasErrors = search.errors.length > 0;
  const title = hasErrors
    ? 'Recherche à corriger'
    : search.filtered
      ? 'Résultats de recherche'
      : 'Stages de récupération de points';
  return (
    <Layout
      site={props.site}
      title={title}
      description="Trouvez un stage de récupération de points près de chez vous : dates, prix et places restantes en temps réel, dans des centres agréés."
      canonicalPath="/"
      noindex={search.filtered || search.page > 1 || hasErrors}
      alternateJson={hasErrors ? undefined : props.apiHref}
    >
      <h1>Stages de récupération de points</h1>
      <p class="lead">
        Deux jours en centre agréé pour récupérer jusqu’à 4 points. Cherchez par ville ou département : dates, prix et
        places restantes à jour.
      </p>
      {hasErrors ? (
        <div class="errors" role="alert">
          <h2>La recherche n’a pas pu être faite</h2>
          <ul>
            {search.errors.map((err) => (
              <li>
                <a href={`#${err.field === 'page' ? 'resultats' : err.field}`}>{err.message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <SearchForm search={search} />
      {hasErrors ? null : (
        <section aria-labelledby="resultats">
          <h2 id="resultats">{search.filtered ? 'Stages trouvés' : 'Prochains stages'}</h2>
          {props.entries.length === 0 ? (
            <p>
              Aucun stage ne correspond à ces critères. Essayez un département voisin, d’autres dates ou un prix plus
              élevé.
            </p>
          ) : (
            <SessionList entries={props.entries} />
          )}
          <Pager page={search.page} hasNext={props.hasNext} href={(p) => searchHref(search.values, p)} />
        </section>
      )}
      {hasErrors || !props.alert ? null : <AlertForm fields={props.alert.fields} heading="h2" />}
      <section aria-labelledby="departements">
        <h2 id="departements">Stages par département</h2>
        {/* Raw on purpose: constant markup rendered once by the same escaping renderer (departments.tsx) */}
        <div dangerouslySetInnerHTML={{ __html: insertMarkup(DEPARTMENT_LINKS) }} />
      </section>
    </Layout>
  );
}
