import { newSecret, secretHash } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { alertLinks } from '../db/schema.js';
import type { Tx } from '../db/write.js';

/** An alert link's secret: 128 random bits, 22 characters of base64url (as a reservation's private link). */
export const ALERT_TOKEN = /^[A-Za-z0-9_-]{22}$/;

export type AlertLinkPurpose = 'confirm' | 'unsubscribe';

/** The path of an alert's confirmation page (a button that confirms: a mail scanner fetching it confirms nothing). */
export function confirmPath(token: string): string {
  return `/alertes/confirmer/${token}`;
}

/** The path of an alert's one-click unsubscribe (RFC 8058: POST ends it; GET shows a button). */
export function unsubscribePath(token: string): string {
  return `/alertes/arret/${token}`;
}

/**
 * A new link for an alert: only its SHA-256 is stored; the secret goes into one email. Each email
 * gets its own unsubscribe link (the secrets are not kept, so none can be sent twice); any of them
 * ends the alert.
 */
export async function newAlertLink(tx: Tx | Db, alertId: string, purpose: AlertLinkPurpose): Promise<string> {
  const token = newSecret(16);
  await tx.insert(alertLinks).values({ tokenHash: secretHash(token), alertId, purpose });
  return token;
}
