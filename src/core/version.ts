import { readFileSync } from 'node:fs';

/**
 * The service's release, as package.json says (health, the MCP server info, the server card).
 * Read once at start; the file sits two folders up from both src/core and dist/core.
 */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
