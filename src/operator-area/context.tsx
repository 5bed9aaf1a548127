import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { User } from '../accounts/users.js';
import { approvalEnded, approvalEndsAt } from '../catalogue/approval.js';
import { departmentByCode, METROPOLITAN_TIME_ZONE } from '../catalogue/geography.js';
import { Layout, type SiteInfo, siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import type { CentreStanding } from './centre-pages.js';
import type { CentreRow } from './repository.js';

export { GUARD_REFUSED } from '../accounts/area.js';
export const NOT_FOUND = 'Cette page n’existe pas.';

/** Days before an approval ends from which the centre is listed as to be renewed. */
export const ENDING_WITHIN_DAYS = 90;

/** What the operators' routes share. */
export interface OperatorContext {
  site: SiteInfo;
  token(request: FastifyRequest, reply: FastifyReply): string;
  /** Whether the request's form carries this browser's anti-forgery token from one of our pages. */
  formOk(request: FastifyRequest, form: Record<string, unknown>): boolean;
  page(reply: FastifyReply, status: number, page: VNode): FastifyReply;
  refusal(reply: FastifyReply, status: number, title: string, text: string): FastifyReply;
  /** Where a centre stands now, on the service clock. */
  standing(row: CentreRow): CentreStanding;
}

export function operatorContext(app: FastifyInstance): OperatorContext {
  const site = siteInfo(app.config);
  const page = (reply: FastifyReply, status: number, vnode: VNode) => privateHtml(reply, status, renderPage(vnode));
  return {
    site,
    token: (request, reply) => app.accounts.guard.tokenFor(request, reply),
    formOk: (request, form) => app.accounts.guard.check(request, form._csrf) === 'ok',
    page,
    refusal: (reply, status, title, text) =>
      page(
        reply,
        status,
        <Layout site={site} title={title} description={text} noindex>
          <h1>{title}</h1>
          <p>{text}</p>
          <p>
            <a href="/administration">Retour à l’administration</a>
          </p>
        </Layout>,
      ),
    standing(row) {
      const nowMs = app.clock.now().getTime();
      if (row.suspendedAt) return 'suspended';
      if (approvalEnded(row, nowMs)) return 'expired';
      const zone = departmentByCode(row.deptCode)?.timeZone ?? METROPOLITAN_TIME_ZONE;
      const ends = approvalEndsAt(row.approvedOn, zone);
      return ends - nowMs <= ENDING_WITHIN_DAYS * 86_400_000 ? 'expiring' : 'active';
    },
  };
}

/** The signed-in operator of a request (set by the area's first hook). */
export function operator(request: FastifyRequest): User {
  if (!request.areaUser?.admin) throw new Error('an operators’ route ran before the admin check');
  return request.areaUser;
}
