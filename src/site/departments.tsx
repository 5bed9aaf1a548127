import { renderToString } from 'preact-render-to-string';
import { DEPARTMENTS } from '../catalogue/geography.js';

/*
 * The 101 departments appear on the home page twice (the form's list and the links). They never
 * change, so their markup is rendered once — by the same escaping renderer — and reused; the list
 * is kept per selected department (102 variants at most).
 */

const optionsBySelected = new Map<string, string>();

export function departmentOptionsHtml(selected: string | undefined): string {
  const key = selected ?? '';
  let html = optionsBySelected.get(key);
  if (html === undefined) {
    html = renderToString(
      <>
        <option value="">Tous les départements</option>
        {DEPARTMENTS.map((d) => (
          <option value={d.code} selected={d.code === key}>
            {`${d.code} – ${d.name}`}
          </option>
        ))}
      </>,
    );
    optionsBySelected.set(key, html);
  }
  return html;
}

export const DEPARTMENT_LINKS_HTML = renderToString(
  <ul class="cols">
    {DEPARTMENTS.map((d) => (
      <li>
        <a href={`/departements/${d.code}`}>{`${d.name} (${d.code})`}</a>
      </li>
    ))}
  </ul>,
);
