import type { Department } from '../../catalogue/geography.js';
import type { CentreEntry, SessionEntry } from '../../catalogue/read-model.js';
import { centrePath, PagedSessions } from '../../web/components.js';
import { Layout, type SiteInfo } from '../../web/layout.js';

export interface DepartmentPageProps {
  site: SiteInfo;
  department: Department;
  entries: readonly SessionEntry[];
  centres: readonly CentreEntry[];
  page: number;
  hasNext: boolean;
  path: string;
}

export function DepartmentPage(props: DepartmentPageProps) {
  const d = props.department;
  return (
    <Layout
      site={props.site}
      title={`Stage de récupération de points ${d.name} (${d.code})`}
      description={`Les prochains stages de récupération de points dans le département ${d.name} (${d.code}) : dates, prix et places restantes dans les centres agréés.`}
      canonicalPath={props.path}
      noindex={props.page > 1}
      alternateJson={`/api/stages?dept=${d.code}`}
    >
      <h1>
        Stages de récupération de points : {d.name} ({d.code})
      </h1>
      <p class="lead">Les prochains stages avec des places disponibles dans le département, région {d.region}.</p>
      <PagedSessions
        title="Prochains stages"
        entries={props.entries}
        empty={
          <p>
            Aucun stage avec des places disponibles pour le moment.{' '}
            <a href={`/?dept=${d.code}&includeUnavailable=true`}>Voir aussi les stages complets</a>.
          </p>
        }
        page={props.page}
        hasNext={props.hasNext}
        path={props.path}
      />
      {props.centres.length ? (
        <section aria-labelledby="centres">
          <h2 id="centres">Centres agréés du département</h2>
          <ul>
            {props.centres.map((c) => (
              <li>
                <a href={centrePath(c.view.slug)}>{c.view.name}</a>, {c.view.city}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Layout>
  );
}
