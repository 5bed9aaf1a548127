/**
 * What a person may let an agent do for them (issue 26). `read` (public data) needs nobody's
 * consent and is in every token; the others only in the tokens of a client the person claimed,
 * and only when they granted them. None of them ever lets an agent pay, book, or see the
 * person's area or details (spec.md §5.8).
 */
export const AGENT_SCOPES = ['hold', 'alerts'] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];

export function isAgentScope(value: string): value is AgentScope {
  return (AGENT_SCOPES as readonly string[]).includes(value);
}

/** How the person's pages name each scope (plain French, what it means for them). */
export const SCOPE_TEXT: Record<AgentScope, string> = {
  hold: 'Mettre une place de côté pour vous dans un stage, pour peu de temps : c’est vous qui finissez la réservation sur ce site.',
  alerts: 'Créer des alertes pour vous : les e-mails d’alerte vous arrivent à vous, et chacun permet de se désabonner.',
};

/** Short labels, for the list of agents in the people's area. */
export const SCOPE_LABEL: Record<AgentScope, string> = {
  hold: 'mettre une place de côté',
  alerts: 'créer des alertes',
};

/** The agent scopes in a space-separated list, in the canonical order, without repeats. */
export function scopesOf(list: string | null | undefined): AgentScope[] {
  const words = new Set((list ?? '').split(' '));
  return AGENT_SCOPES.filter((scope) => words.has(scope));
}

/** A token's or a claim's scope string: `read` first, then the agent scopes in order. */
export function scopeString(scopes: readonly AgentScope[]): string {
  return ['read', ...AGENT_SCOPES.filter((scope) => scopes.includes(scope))].join(' ');
}

/** What each scope lets a claimed client do, for agent developers (metadata, docs). */
export const SCOPE_DESCRIPTION: Record<AgentScope, string> = {
  hold: 'Hold a place in a session for the person for a short time; the person completes the booking themselves on the site.',
  alerts: 'Create alerts for the person (the emails go to the person, each with a one-click unsubscribe).',
};
