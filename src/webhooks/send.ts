import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPublicAddress } from './address-check.js';

/** Connect, send and answer within this, or the try fails (a receiver that hangs holds no worker). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Of the receiver's answer only the status counts: at most this much of its body is read. */
const MAX_BODY_BYTES = 16 * 1024;

/** A try that did not get a 2xx: `code` says why (a class of failure, never a message). */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    readonly code: string,
    readonly status?: number,
  ) {
    super(code);
  }
}

export interface SendOptions {
  /** WEBHOOK_ALLOW_PRIVATE: http and private addresses allowed. */
  allowPrivate: boolean;
  timeoutMs?: number;
}

/** Why a URL may not receive webhooks, as a reason each audience words in its own language. */
export type UrlRefusalReason = 'scheme' | 'credentials' | 'private';

/**
 * Why a URL may not receive webhooks, or undefined: https only, and no literal address that is
 * not public (names are checked when resolved, at each delivery), unless private ones are allowed.
 */
export function urlRefusalReason(url: URL, allowPrivate: boolean): UrlRefusalReason | undefined {
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'scheme';
  if (url.username || url.password) return 'credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isIP(host) !== 0 ? !isPublicAddress(host) : host === 'localhost' || !host.includes('.')))
    return 'private';
  return undefined;
}

/** urlRefusalReason, in the API's English. */
export function urlRefusal(url: URL, allowPrivate: boolean): string | undefined {
  const reason = urlRefusalReason(url, allowPrivate);
  if (reason === 'scheme') return allowPrivate ? 'url must be an http or https URL' : 'url must be an https URL';
  if (reason === 'credentials') return 'url must not carry a user name or password';
  if (reason === 'private') return 'url must be on the public internet (not a private, loopback or link-local address)';
  return undefined;
}

/**
 * POSTs one signed delivery and resolves with the receiver's status when it is 2xx; otherwise
 * rejects with a DeliveryError. Redirects are not followed (a 3xx is a failure: a receiver that
 * moved must be subscribed again at its new URL).
 */
export function sendDelivery(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<number> {
  const url = new URL(target);
  const refusal = urlRefusal(url, options.allowPrivate);
  if (refusal) return Promise.reject(new DeliveryError('UrlRefused'));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'stages-webhooks/1',
      },
      lookup: guardedLookup(options.allowPrivate ? () => true : isPublicAddress),
      agent: false,
      signal: AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.name === 'AbortError' || err.code === 'ABORT_ERR' ? 'Timeout' : (err.code ?? 'NetworkError');
      reject(new DeliveryError(code));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      const finish = () => {
        if (status >= 200 && status < 300) resolve(status);
        else reject(new DeliveryError(status >= 300 && status < 400 ? 'Redirect' : 'HttpStatus', status));
      };
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_BODY_BYTES) {
          res.destroy();
          finish();
        }
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    req.end(body);
  });
}
