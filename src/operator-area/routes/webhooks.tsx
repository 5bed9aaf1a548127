import { inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { centres } from '../../db/schema.js';
import {
  type DeliveryRow,
  lastDeliveries,
  listSubscriptions,
  type SubscriptionRow,
} from '../../webhooks/subscriptions.js';
import type { OperatorContext } from '../context.js';
import { OperatorLayout, PATHS, when } from '../layout.js';

/** Delivery tries shown per subscription. */
const SHOWN_DELIVERIES = 5;

function state(s: SubscriptionRow): string {
  if (s.disabledAt) return `désactivé le ${when(s.disabledAt)} (3 jours d’échecs)`;
  if (s.failingSince) return `en échec depuis le ${when(s.failingSince)}`;
  return 'actif';
}

const outcome = (d: DeliveryRow) =>
  d.statusCode !== null && d.statusCode >= 200 && d.statusCode < 300 ? 'reçu' : 'échec';

/**
 * The webhooks' delivery health: every subscription of every centre (and the all-centre ones),
 * failing and disabled first, with its last deliveries (src/webhooks/subscriptions.ts).
 */
export function webhookHealthRoute(app: FastifyInstance, context: OperatorContext): void {
  const db = app.database.db;
  app.get(PATHS.webhooks, async (_request, reply) => {
    const rows = await listSubscriptions(db, { centreId: null });
    const rank = (s: SubscriptionRow) => (s.disabledAt ? 0 : s.failingSince ? 1 : 2);
    rows.sort((a, b) => rank(a) - rank(b));
    const centreIds = [...new Set(rows.map((r) => r.centreId).filter((id): id is string => id !== null))];
    const names = new Map(
      centreIds.length
        ? (
            await db.select({ id: centres.id, name: centres.name }).from(centres).where(inArray(centres.id, centreIds))
          ).map((c) => [c.id, c.name])
        : [],
    );
    const views = await Promise.all(
      rows.map(async (s) => ({ s, deliveries: await lastDeliveries(db, s.id, SHOWN_DELIVERIES) })),
    );
    const failing = rows.filter((s) => s.disabledAt || s.failingSince).length;
    return context.page(
      reply,
      200,
      <OperatorLayout site={context.site} title="Santé des webhooks">
        <p>
          {rows.length} abonnement{rows.length > 1 ? 's' : ''}, dont {failing} en échec ou désactivé
          {failing > 1 ? 's' : ''}.
        </p>
        <ul class="area-sessions">
          {views.map(({ s, deliveries }) => (
            <li>
              <h2 class="break">{s.url}</h2>
              <p>
                <strong>{state(s)}</strong> ·{' '}
                {s.centreId ? (
                  <a href={PATHS.centre(s.centreId)}>{names.get(s.centreId) ?? s.centreId}</a>
                ) : (
                  'tous les centres'
                )}{' '}
                · {s.events.join(', ')}
              </p>
              {deliveries.length === 0 ? (
                <p>Aucune livraison encore.</p>
              ) : (
                <ul>
                  {deliveries.map((d) => (
                    <li>
                      {when(d.at)} · {d.type} · essai {d.attempt} · {outcome(d)}
                      {d.statusCode !== null ? ` (${d.statusCode})` : ''}
                      {d.error ? ` · ${d.error}` : ''}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      </OperatorLayout>,
    );
  });
}
