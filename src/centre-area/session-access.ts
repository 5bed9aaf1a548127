import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../accounts/users.js';
import { dateIn } from '../core/clock.js';
import { UUID } from '../core/uuid.js';
import type { Db } from '../db/connect.js';
import { type AreaPart, NOT_YOURS, refusalPage, requirePart } from './access.js';
import { type SessionFile, sessionFile } from './attendance-repository.js';
import { areaUser } from './context.js';

export interface SessionAccess {
  user: User;
  session: SessionFile;
  /** Today's date in the session's centre's zone, on the service's clock. */
  today: string;
}

/**
 * The session named by the path's `:id` when the signed-in user may use `part` of its centre;
 * otherwise the refusal is answered (404 for another centre's session or an unknown id, the same
 * answer; 403 for a part the role may not use) and undefined returned.
 */
export async function sessionForPart(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  part: AreaPart,
): Promise<SessionAccess | undefined> {
  const user = areaUser(request);
  const { id } = request.params as { id: string };
  const session = UUID.test(id) ? await sessionFile(db, id.toLowerCase()) : undefined;
  if (!session) {
    refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
    return undefined;
  }
  if (!requirePart(request, reply, user, session.centreId, part)) return undefined;
  return { user, session, today: dateIn(request.server.clock.now(), session.centre.timeZone) };
}
