import { type AgentPerson, agentPerson, InsufficientScopeError, requireScope } from '../agent-claims/agent-person.js';
import type { Identity } from '../auth/identity.js';
import type { Db } from '../db/connect.js';

export type HoldsAccess =
  | { ok: true; agent: { person: AgentPerson; clientId: string } }
  | { ok: false; error: InsufficientScopeError };

/**
 * The person a request may hold places for: its client must be claimed (checked in the database
 * on this request: a revoked claim is refused at once), and the person must have granted `hold`.
 * Otherwise the error says what to do (claim first, or ask a token with it).
 */
export async function holdsAccess(db: Db, identity: Identity): Promise<HoldsAccess> {
  try {
    requireScope(identity, 'hold');
  } catch (err) {
    if (err instanceof InsufficientScopeError) return { ok: false, error: err };
    throw err;
  }
  const person = identity.kind === 'client' ? await agentPerson(db, identity) : undefined;
  if (!person || identity.kind !== 'client' || !person.scopes.includes('hold'))
    return {
      ok: false,
      error: new InsufficientScopeError(
        'hold',
        'The person’s consent is no longer in force: start a new claim (POST /api/oauth/claim) and have the person approve "hold".',
      ),
    };
  return { ok: true, agent: { person, clientId: identity.clientId } };
}
