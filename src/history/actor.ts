import type { Identity } from '../auth/identity.js';

/*
 * Who made a change, as the history records it. Passed down explicitly from the door that took the
 * request (an API key's route, the command line; later a signed-in user of the centres' area) to
 * the function that writes: no global and no request-local storage, so every write says who.
 */

export type ActorKind = 'api_key' | 'user' | 'cli' | 'site' | 'system';

export interface Actor {
  kind: ActorKind;
  /** The API key's or user's id; null for the command line, the site and the service itself. */
  id: string | null;
  /** A name for people reading the history: the key's name, the user's email… never a secret. */
  label: string | null;
}

export const CLI_ACTOR: Actor = Object.freeze({ kind: 'cli', id: null, label: 'command line' });

/** The actor of an admin request: its API key (id and name, never the key). */
export function actorOf(identity: Identity): Actor {
  return identity.kind === 'apiKey'
    ? { kind: 'api_key', id: identity.keyId, label: identity.name }
    : { kind: 'system', id: null, label: null };
}

/** The actor of a signed-in user's change in an area: their id and email. */
export function userActor(user: { id: string; email: string }): Actor {
  return { kind: 'user', id: user.id, label: user.email };
}
