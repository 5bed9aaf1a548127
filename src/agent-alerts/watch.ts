import type { AgentPerson } from '../agent-claims/agent-person.js';
import { createAlert, MAX_ACTIVE_ALERTS } from '../alerts/create-alert.js';
import type { AlertCriteria } from '../alerts/criteria.js';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { SearchArgumentError, searchStages } from '../catalogue/search.js';
import type { Db } from '../db/connect.js';
import { claimWatch } from './claim-watches.js';
import type { Watch } from './watch-view.js';

export interface WatchDeps {
  now: Date;
  snapshot: CatalogueSnapshot;
  baseUrl: string;
  platformName: string;
}

/** Why a watch was not made: the doors give `status` (REST) or an error result (MCP) with `detail`. */
export interface WatchRefusal {
  status: 400 | 404 | 409;
  code: string;
  detail: string;
  field?: string;
}

export type WatchResult = { ok: true; watch: Watch } | ({ ok: false } & WatchRefusal);

/**
 * Makes an alert for the person who claimed this client, by the people's area's own store
 * (createAlert): the emails go to the person, each with its one-click unsubscribe, and the person
 * sees it in /mon-espace/alertes. Confirmed at once: the person approved the `alerts` scope after
 * the emailed sign-in, which proves their address and is their opt-in. Asking again for the same
 * watch under the same claim gives the same alert back.
 */
export async function watchForPerson(
  db: Db,
  agent: { person: AgentPerson; clientId: string },
  criteria: AlertCriteria,
  deps: WatchDeps,
): Promise<WatchResult> {
  if ('search' in criteria) {
    // A place the catalogue cannot name alone (an ambiguous `near`) would never match: refused now.
    try {
      searchStages(deps.snapshot, { ...criteria.search, limit: 1, includeUnavailable: true }, deps.now);
    } catch (err) {
      if (!(err instanceof SearchArgumentError)) throw err;
      return { ok: false, status: 400, code: 'invalid_parameters', detail: err.message, field: err.field };
    }
  }
  const result = await createAlert(
    db,
    {
      email: agent.person.email,
      criteria,
      creator: { via: 'agent', clientId: agent.clientId, claimId: agent.person.claimId },
      confirmed: true,
    },
    deps,
  );
  switch (result.kind) {
    case 'active': {
      if (result.claimId !== agent.person.claimId)
        return {
          ok: false,
          status: 409,
          code: 'already_watched',
          detail:
            'The person already has this alert, made on the site or by another agent: it runs, and only the person can see or remove it.',
        };
      const watch = await claimWatch(db, agent.person.claimId, result.alertId, deps.now);
      if (!watch) throw new Error('the alert just made is not found');
      return { ok: true, watch };
    }
    case 'unknown-session':
      return {
        ok: false,
        status: 404,
        code: 'not_found',
        detail: 'No session with this id can be watched: it is unknown, cancelled or has begun. Use search_stages.',
        field: 'sessionId',
      };
    case 'not-full':
      return {
        ok: false,
        status: 409,
        code: 'not_full',
        detail: 'This session has places now: give the person its bookingUrl instead (check_availability).',
        field: 'sessionId',
      };
    case 'too-many':
      return {
        ok: false,
        status: 409,
        code: 'too_many_alerts',
        detail: `The person already has ${MAX_ACTIVE_ALERTS} running alerts, the maximum: remove one first.`,
      };
    case 'sent':
    case 'too-many-mails':
      // Only an unconfirmed alert sends a confirmation; an agent's is confirmed.
      throw new Error(`unexpected alert result ${result.kind}`);
  }
}
