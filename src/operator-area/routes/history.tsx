import type { FastifyInstance } from 'fastify';
import { instantOf } from '../../core/clock.js';
import { UUID } from '../../core/uuid.js';
import { listHistory } from '../../history/list.js';
import type { OperatorContext } from '../context.js';
import { OperatorLayout, PATHS, when } from '../layout.js';

const PAGE_SIZE = 50;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\.([0-9a-f-]{36})$/;
const ENTITIES = { centre: 'centre', session: 'stage', reservation: 'réservation' } as Record<string, string>;
const ACTORS = {
  api_key: 'clé',
  user: 'utilisateur',
  cli: 'ligne de commande',
  site: 'site',
  system: 'service',
} as Record<string, string>;

/**
 * The history of everything (GET /api/admin/history's function, every centre), newest first, 50 a
 * page; `avant` is the last row's position, as the API's cursor.
 */
export function historyRoute(app: FastifyInstance, context: OperatorContext): void {
  app.get(PATHS.history, async (request, reply) => {
    // The API's cursor, read as the API reads it (an instant the database can hold, and a UUID).
    const cursor = CURSOR.exec(String((request.query as Record<string, unknown>).avant ?? ''));
    const at = cursor ? instantOf(cursor[1] as string) : undefined;
    const before = cursor && at && UUID.test(cursor[2] as string) ? { at, id: cursor[2] as string } : undefined;
    const rows = await listHistory(app.database.db, { before, limit: PAGE_SIZE });
    const last = rows.at(-1);
    const next = rows.length === PAGE_SIZE && last ? `${last.cursorAt}.${last.id}` : undefined;
    return context.page(
      reply,
      200,
      <OperatorLayout site={context.site} title="Historique">
        <p>Chaque changement de centre, de stage ou de réservation, le plus récent d’abord, gardé un an.</p>
        {rows.length === 0 ? (
          <p>Rien de plus ancien.</p>
        ) : (
          <ul class="area-sessions">
            {rows.map((r) => (
              <li>
                <strong>{when(r.at)}</strong> · {ENTITIES[r.entity] ?? r.entity}{' '}
                {r.entity === 'centre' ? (
                  <a href={PATHS.centre(r.entityId)}>{r.entityId.slice(0, 8)}</a>
                ) : (
                  r.entityId.slice(0, 8)
                )}{' '}
                · <strong>{r.field}</strong> : <span class="break">{r.oldValue ?? '—'}</span> →{' '}
                <span class="break">{r.newValue ?? '—'}</span>
                <br />
                <span class="hint">
                  par {ACTORS[r.actorKind] ?? r.actorKind}
                  {r.actorLabel ? ` ${r.actorLabel}` : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
        {next ? (
          <p>
            <a href={`${PATHS.history}?avant=${encodeURIComponent(next)}`}>Plus ancien</a>
          </p>
        ) : null}
      </OperatorLayout>,
    );
  });
}
