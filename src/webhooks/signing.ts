import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + 32 random bytes in base64, as Standard Webhooks libraries read it. */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of
 * `${id}.${timestamp}.${body}`, keyed with the bytes the secret's base64 (after `whsec_`) holds.
 * `timestamp` is in whole seconds since the epoch, as sent in `webhook-timestamp`.
 */
export function signatureHeader(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}
