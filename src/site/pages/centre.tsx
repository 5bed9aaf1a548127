import type { CentreEntry, SessionEntry } from '../../catalogue/read-model.js';
import { departmentPath, MapLink, PagedSessions } from '../../web/components.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import { centreJsonLd } from '../structured-data.js';

export interface CentrePageProps {
  site: SiteInfo;
  centre: CentreEntry;
  /** Upcoming sessions of this page, full ones included. */
  entries: readonly SessionEntry[];
  page: number;
  hasNext: boolean;
  path: string;
}

export function CentrePage(props: CentrePageProps) {
  const c = props.centre.view;
  return (
    <Layout
      site={props.site}
      title={`${c.name}, ${c.city}`}
      description={`Stages de récupération de points au centre agréé ${c.name}, ${c.address}, ${c.postalCode} ${c.city} : dates, prix et places restantes.`}
      canonicalPath={props.path}
      noindex={props.page > 1}
      jsonLd={[centreJsonLd(props.centre, `${props.site.baseUrl}${props.path}`)]}
    >
      <h1>{c.name}</h1>
      <div class="card">
        <dl class="facts">
          <dt>Adresse</dt>
          <dd>
            {c.address}, {c.postalCode} {c.city}
          </dd>
          <dt>Département</dt>
          <dd>
            <a href={departmentPath(c.deptCode)}>{`${c.deptName} (${c.deptCode})`}</a>, {c.region}
          </dd>
          <dt>Agrément préfectoral</dt>
          <dd>n° {c.agrementNumber}</dd>
        </dl>
        <MapLink lat={c.lat} lng={c.lng} />
      </div>
      <PagedSessions
        title="Prochains stages dans ce centre"
        entries={props.entries}
        showCentre={false}
        empty={
          <p>
            Aucun stage n’est programmé pour le moment dans ce centre.{' '}
            <a href={departmentPath(c.deptCode)}>Voir les stages du département</a>.
          </p>
        }
        page={props.page}
        hasNext={props.hasNext}
        path={props.path}
      />
    </Layout>
  );
}
