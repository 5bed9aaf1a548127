import type { ArticleLibrary } from '../articles/articles.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/connect.js';

/** What the tools read: built once per app, shared by every per-request MCP server. */
export interface ToolContext {
  catalogue: Catalogue;
  articles: ArticleLibrary;
  clock: Clock;
  platformName: string;
  /** The service's public address: the icons' URLs. */
  publicBaseUrl: string;
  /** The database: the `watches` tool's alerts, for a claimed client's person. */
  db: Db;
  /** Whether the service sends email: without it, no alerts. */
  sendsMail: boolean;
  /** How long a hold keeps its place; undefined without the site (no booking page to complete a hold on). */
  holdTtlSeconds: number | undefined;
}

/** A read tool's hints; its title is the tool's own `title` (one title per tool). */
// destructiveHint and idempotentHint are meaningful only when readOnlyHint is false (MCP's tool
// annotations): a read-only tool leaves them out, and tools/list is shorter by as much.
export const READ_ONLY = {
  readOnlyHint: true,
  openWorldHint: false,
} as const;

export const BOOKING_NOTE =
  'Booking and payment are never done through this service: give the human user the bookingUrl, where they finalise the booking themselves.';

/** The same rule in the tools' descriptions, which every host keeps in its model's context. */
export const BOOKING_HINT = 'Never book or pay: give the user the bookingUrl.';

/** A tool result carrying both the structured value and a readable text block. */
export function result<T extends Record<string, unknown>>(structuredContent: T, text: string) {
  return { structuredContent, content: [{ type: 'text' as const, text }] };
}

/** A tool-level failure the model can read and act on (not a protocol error). */
export function toolError(text: string) {
  return { isError: true, content: [{ type: 'text' as const, text }] };
}
