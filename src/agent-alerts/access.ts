import { type AgentPerson, agentPerson, InsufficientScopeError, requireScope } from '../agent-claims/agent-person.js';
import type { Identity } from '../auth/identity.js';
import type { Db } from '../db/connect.js';

export type AlertsAccess =
  | { ok: true; agent: { person: AgentPerson; clientId: string } }
  | { ok: false; error: InsufficientScopeError };

/**
 * The person a request may set alerts for: its client must be claimed, and the person must have
 * granted `alerts`. Otherwise the error says what to do (claim first, or ask a token with it).
 */
export async function alertsAccess(db: Db, identity: Identity): Promise<AlertsAccess> {
  try {
    requireScope(identity, 'alerts');
  } catch (err) {
    if (err instanceof InsufficientScopeError) return { ok: false, error: err };
    throw err;
  }
  const person = identity.kind === 'client' ? await agentPerson(db, identity) : undefined;
  if (!person || identity.kind !== 'client' || !person.scopes.includes('alerts'))
    return {
      ok: false,
      error: new InsufficientScopeError(
        'alerts',
        'The person’s consent is no longer in force: start a new claim (POST /api/oauth/claim) and have the person approve "alerts".',
      ),
    };
  return { ok: true, agent: { person, clientId: identity.clientId } };
}
