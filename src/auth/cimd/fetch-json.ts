import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from '../../webhooks/address-check.js';
import { allowedAddress, type UrlAllowance } from './client-id-url.js';

/** Why a fetch failed, in words an agent developer can act on ("… <reason>"). */
export class FetchRefused extends Error {
  override readonly name = 'FetchRefused';
}

export interface FetchedJson {
  json: unknown;
  /** Cache-Control max-age in seconds; 0 for no-store or no-cache; undefined when not said. */
  maxAgeSeconds: number | undefined;
}

export interface FetchOptions extends UrlAllowance {
  timeoutMs: number;
  maxBytes: number;
  /**
   * Certificate authorities (PEM) trusted for https instead of the system's: a seam for tests
   * serving documents from a self-signed certificate, given only through buildApp's deps.
   */
  trustedCa?: string | undefined;
}

/** RFC 9111 §5.2.2: what the answer lets a cache keep it for (only what matters to one reader). */
export function cacheSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const directives = header
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache' || d.startsWith('no-cache='))) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age='));
  const seconds = maxAge ? Number(maxAge.slice('max-age='.length).replace(/^"|"$/g, '')) : Number.NaN;
  return Number.isInteger(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * GETs a JSON document from a URL someone else chose (a client's metadata, its key set), as the
 * CIMD draft's security considerations ask: the address resolved and refused unless public (the
 * webhooks' check), no redirect followed, at most `maxBytes` read, everything (connection, answer,
 * body) within `timeoutMs`. Rejects with FetchRefused saying what went wrong.
 */
export function fetchJson(target: string, options: FetchOptions): Promise<FetchedJson> {
  const url = new URL(target);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new FetchRefused(reason));
    };
    const req = client.request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'stages-oauth/1 (client metadata)' },
      lookup: guardedLookup(allowedAddress(options)),
      agent: false,
      ...(options.trustedCa === undefined ? {} : { ca: options.trustedCa }),
    });
    const timer = setTimeout(() => fail(`did not answer within ${options.timeoutMs} ms`), options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRNOTPUBLIC')
        fail('resolves to an address that is not on the public internet (private, loopback or link-local)');
      else if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') fail('has a host name that does not resolve');
      else fail(`could not be reached (${/^[A-Z_]{2,30}$/.test(err.code ?? '') ? err.code : 'network error'})`);
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400)
        return fail(`answered with a redirect (HTTP ${status}); redirects are not followed`);
      if (status !== 200) return fail(`answered HTTP ${status}, not 200`);
      const declared = Number(res.headers['content-length']);
      if (declared > options.maxBytes) return fail(`is larger than ${options.maxBytes} bytes`);
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > options.maxBytes) return fail(`is larger than ${options.maxBytes} bytes`);
        chunks.push(chunk);
      });
      res.on('error', () => fail('was cut off before its end'));
      res.on('end', () => {
        if (settled) return;
        let json: unknown;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return fail('is not valid JSON');
        }
        settled = true;
        clearTimeout(timer);
        resolve({ json, maxAgeSeconds: cacheSeconds(res.headers['cache-control']) });
      });
    });
    req.end();
  });
}
