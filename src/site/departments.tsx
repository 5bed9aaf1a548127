import { DEPARTMENTS } from '../catalogue/geography.js';
import { Markup, renderMarkup } from '../web/page-bytes.js';

/*
 * The 101 departments appear on the home page twice (the form's list and the links). They never
 * change, so their markup is rendered once — by the same escaping renderer — and reused; the list
 * is kept per selected department (102 variants at most).
 */

const optionsBySelected = new Map<string, Markup>();

export function departmentOptions(selected: string | undefined): Markup {
  const key = selected ?? '';
  let options = optionsBySelected.get(key);
  if (options === undefined) {
    options = new Markup(
      renderMarkup(
        <>
          <option value="">Tous les départements</option>
          {DEPARTMENTS.map((d) => (
            <option value={d.code} selected={d.code === key}>
              {`${d.code} – ${d.name}`}
            </option>
          ))}
        </>,
      ),
    );
    optionsBySelected.set(key, options);
  }
  return options;
}

export const DEPARTMENT_LINKS = new Markup(
  renderMarkup(
    <ul class="cols">
      {DEPARTMENTS.map((d) => (
        <li>
          <a href={`/departements/${d.code}`}>{`${d.name} (${d.code})`}</a>
        </li>
      ))}
    </ul>,
  ),
);
