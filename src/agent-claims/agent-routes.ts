import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/connect.js';
import { problem, sendProblem } from '../http/problem.js';
import { agentAccess } from './agent-access.js';
import type { AgentScope } from './scopes.js';

export interface ClaimedAgentDoor {
  db: Db;
  /** Named in the WWW-Authenticate challenge of a 403 (RFC 9728). */
  resourceMetadata: string;
  scope: AgentScope;
  /** Set when this service is configured without what the door needs: every request gets this 503. */
  unavailable?: { code: string; detail: string } | undefined;
}

/**
 * The preamble of a REST route for a claimed agent (agent-holds, agent-alerts): the agent and its
 * person, or undefined with the reply already sent (503 when the door is off here, 403
 * insufficient_scope with its challenge when the client is unclaimed or lacks `scope`).
 */
export function claimedAgentOf(door: ClaimedAgentDoor) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const instance = request.url.split('?')[0];
    if (door.unavailable) {
      sendProblem(reply, problem(503, door.unavailable.code, door.unavailable.detail, { instance }));
      return undefined;
    }
    const access = await agentAccess(door.db, request.identity, door.scope);
    if (access.ok) return access.agent;
    reply.header('www-authenticate', access.error.challenge(door.resourceMetadata));
    sendProblem(reply, problem(403, access.error.code, access.error.description, { instance }));
    return undefined;
  };
}
