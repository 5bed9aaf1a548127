import type { ComponentChildren } from 'preact';
import { METROPOLITAN_TIME_ZONE } from '../core/clock.js';
import { Layout, type SiteInfo } from '../web/layout.js';

export const AREA = '/administration';
export const PATHS = {
  home: AREA,
  newCentre: `${AREA}/centres/nouveau`,
  centre: (id: string) => `${AREA}/centres/${id}`,
  suspension: (id: string) => `${AREA}/centres/${id}/suspension`,
  users: `${AREA}/utilisateurs`,
  disableUser: `${AREA}/utilisateurs/desactiver`,
  keys: `${AREA}/cles`,
  revokeKey: (id: string) => `${AREA}/cles/${id}/revocation`,
  history: `${AREA}/historique`,
  webhooks: `${AREA}/webhooks`,
} as const;

const instant = new Intl.DateTimeFormat('fr-FR', {
  timeZone: METROPOLITAN_TIME_ZONE,
  dateStyle: 'short',
  timeStyle: 'short',
});
/** An instant as an operator in Paris reads it. */
export const when = (d: Date) => instant.format(d);

export interface Messages {
  notice?: string | undefined;
  problem?: string | undefined;
}

/** Every page of the operators' area: its menu, its message, its content. */
export function OperatorLayout(props: {
  site: SiteInfo;
  title: string;
  messages?: Messages | undefined;
  children: ComponentChildren;
}) {
  const m = props.messages ?? {};
  return (
    <Layout site={props.site} title={`${props.title} · Administration`} description="Administration du service" noindex>
      <nav aria-label="Administration">
        <p>
          <a href={PATHS.home}>Centres</a> · <a href={PATHS.users}>Utilisateurs</a> ·{' '}
          <a href={PATHS.keys}>Clés d’API</a> · <a href={PATHS.history}>Historique</a> ·{' '}
          <a href={PATHS.webhooks}>Webhooks</a>
        </p>
      </nav>
      <h1>{props.title}</h1>
      {m.problem ? (
        <p class="notice" role="alert">
          {m.problem}
        </p>
      ) : m.notice ? (
        <p class="notice" role="status">
          {m.notice}
        </p>
      ) : null}
      {props.children}
    </Layout>
  );
}

/** The hidden anti-forgery field every form carries. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
