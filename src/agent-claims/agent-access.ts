import type { Identity } from '../auth/identity.js';
import type { Db } from '../db/connect.js';
import { type AgentPerson, agentPerson, InsufficientScopeError, requireScope } from './agent-person.js';
import type { AgentScope } from './scopes.js';

export type AgentAccess =
  | { ok: true; agent: { person: AgentPerson; clientId: string } }
  | { ok: false; error: InsufficientScopeError };

/**
 * The person a request's client may act for with `scope` (`hold`: hold places; `alerts`: set
 * alerts): its client must be claimed (checked in the database on this request: a revoked claim
 * is refused at once), and the person must have granted `scope`. Otherwise the error says what to
 * do (claim first, or ask a token with it).
 */
export async function agentAccess(db: Db, identity: Identity, scope: AgentScope): Promise<AgentAccess> {
  try {
    requireScope(identity, scope);
  } catch (err) {
    if (err instanceof InsufficientScopeError) return { ok: false, error: err };
    throw err;
  }
  const person = identity.kind === 'client' ? await agentPerson(db, identity) : undefined;
  if (!person || identity.kind !== 'client' || !person.scopes.includes(scope))
    return {
      ok: false,
      error: new InsufficientScopeError(
        scope,
        `The person’s consent is no longer in force: start a new claim (POST /api/oauth/claim) and have the person approve "${scope}".`,
      ),
    };
  return { ok: true, agent: { person, clientId: identity.clientId } };
}
