/**
 * Every identifier and endpoint of the authorization server and the protected resources, derived
 * once from PUBLIC_BASE_URL. Strict clients compare the issuer byte for byte between the AS
 * metadata, the protected resource metadata and the token's `iss`, so it is built in one place.
 */
export interface AuthUrls {
  /** The issuer: PUBLIC_BASE_URL, without a trailing slash. */
  issuer: string;
  tokenEndpoint: string;
  /** Exists because MCP SDK clients require it in the metadata; it serves no flow (see routes.ts). */
  authorizationEndpoint: string;
  registrationEndpoint: string;
  claimEndpoint: string;
  jwksUri: string;
  authorizationServerMetadata: string;
  /** Resource identifier of the MCP endpoint: the default audience of access tokens. */
  mcpResource: string;
  /** Resource identifier of the service as a whole (the root protected resource metadata). */
  rootResource: string;
  /** RFC 9728 path-inserted metadata URL for the MCP endpoint; 401s point here. */
  mcpResourceMetadata: string;
  rootResourceMetadata: string;
  documentation: string;
}

export function authUrls(publicBaseUrl: string): AuthUrls {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    issuer: base,
    tokenEndpoint: `${base}/api/oauth/token`,
    authorizationEndpoint: `${base}/api/oauth/authorize`,
    registrationEndpoint: `${base}/api/oauth/register`,
    claimEndpoint: `${base}/api/oauth/claim`,
    jwksUri: `${base}/.well-known/jwks.json`,
    authorizationServerMetadata: `${base}/.well-known/oauth-authorization-server`,
    mcpResource: `${base}/api/mcp`,
    rootResource: base,
    mcpResourceMetadata: `${base}/.well-known/oauth-protected-resource/api/mcp`,
    rootResourceMetadata: `${base}/.well-known/oauth-protected-resource`,
    documentation: `${base}/llms.txt`,
  };
}
