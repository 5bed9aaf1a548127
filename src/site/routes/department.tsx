import type { FastifyRequest } from 'fastify';
import { canonicalDeptCode, departmentByCode } from '../../catalogue/geography.js';
import type { CentreEntry } from '../../catalogue/read-model.js';
import { searchStages } from '../../catalogue/search.js';
import { departmentPath } from '../../web/components.js';
import { renderPageBytes } from '../../web/page-bytes.js';
import type { SiteContext } from '../context.js';
import { DepartmentPage } from '../pages/department.js';
import { existingPage, pageNumber, searchLimit } from '../paging.js';

/** A department's centres, by town then name. */
function centresOf(app: SiteContext['app'], deptCode: string): CentreEntry[] {
  const centres: CentreEntry[] = [];
  for (const c of app.catalogue.snapshot.centresById.values()) if (c.view.deptCode === deptCode) centres.push(c);
  return centres.sort(
    (a, b) => a.view.city.localeCompare(b.view.city, 'fr') || a.view.name.localeCompare(b.view.name, 'fr'),
  );
}

/** GET /departements/:code: a department's bookable sessions, a page at a time, and its centres. */
export function departmentRoute({ app, site, page }: SiteContext): void {
  const departmentPage = page((request: FastifyRequest) => {
    const { code } = request.params as { code: string };
    const department = departmentByCode(code);
    const p = pageNumber((request.query as Record<string, unknown>).page);
    if (!department || p === undefined) return undefined;
    const query = { dept: department.code, limit: searchLimit(p), includeUnavailable: false };
    const found = existingPage(searchStages(app.catalogue.snapshot, query, app.clock.now()).entries, p);
    if (!found) return undefined;
    const body = renderPageBytes(
      <DepartmentPage
        site={site}
        department={department}
        entries={found.entries}
        centres={centresOf(app, department.code)}
        page={p}
        hasNext={found.hasNext}
        path={departmentPath(department.code)}
      />,
    );
    // Its sessions and centres: a centre moving in or out changes both departments' versions.
    return { status: 200, body, scope: { depts: [department.code], centres: false } };
  });

  app.get('/departements/:code', { schema: { hide: true } }, async (request, reply) => {
    const { code } = request.params as { code: string };
    const canonical = canonicalDeptCode(code);
    // "/departements/1" or "/departements/2a" lead to the one address search engines should keep.
    if (canonical && canonical !== code) {
      const qs = request.url.indexOf('?');
      return reply.redirect(`/departements/${canonical}${qs >= 0 ? request.url.slice(qs) : ''}`, 301);
    }
    return departmentPage(request, reply);
  });
}
