import { authUrls } from './urls.js';

/*
 * What a caller of the anonymous tier learns when its budget is spent: that a higher tier exists
 * and where it starts. An anonymous request is never refused with 401 (spec.md §5.1): the 429 is
 * the one moment to say it. MCP clients read the challenge (RFC 6750 §3 without an `error`,
 * RFC 9728 §5.1's resource_metadata); REST callers a sentence and a link in the problem.
 */

export interface UpgradeHint {
  /** `WWW-Authenticate` of an anonymous MCP 429: the protected resource metadata, no error. */
  mcpChallenge: string;
  /** The protected resource metadata of the MCP endpoint. */
  resourceMetadata: string;
  /** The problem member of an anonymous REST 429. */
  higherTier: { detail: string; href: string };
}

export function upgradeHint(publicBaseUrl: string): UpgradeHint {
  const urls = authUrls(publicBaseUrl);
  return {
    mcpChallenge: `Bearer resource_metadata="${urls.mcpResourceMetadata}"`,
    resourceMetadata: urls.mcpResourceMetadata,
    higherTier: {
      detail: `This limit is per address, for anonymous callers. Registered clients get a higher one, their own: register (OAuth client_credentials, free and anonymous) and call the MCP endpoint ${urls.mcpResource} with the access token. How: ${urls.documentation}`,
      href: urls.documentation,
    },
  };
}
