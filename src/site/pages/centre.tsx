import type { CentreEntry, SessionEntry } from '../../catalogue/read-model.js';
import { departmentPath, Pager, SessionList } from '../../web/components.js';
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
  const osm = `https://www.openstreetmap.org/?mlat=${c.lat}&mlon=${c.lng}#map=17/${c.lat}/${c.lng}`;
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
        <p>
          <a href={osm}>Voir l’emplacement sur OpenStreetMap</a>
        </p>
      </div>
      <section aria-labelledby="sessions">
        <h2 id="sessions">Prochains stages dans ce centre</h2>
        {props.entries.length ? (
          <SessionList entries={props.entries} showCentre={false} />
        ) : (
          <p>
            Aucun stage n’est programmé pour le moment dans ce centre.{' '}
            <a href={departmentPath(c.deptCode)}>Voir les stages du département</a>.
          </p>
        )}
        <Pager
          page={props.page}
          hasNext={props.hasNext}
          href={(p) => (p > 1 ? `${props.path}?page=${p}` : props.path)}
        />
      </section>
    </Layout>
  );
}
