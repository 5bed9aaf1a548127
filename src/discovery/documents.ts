import { CLAIM_LIFETIME_SECONDS, CLAIM_POLL_INTERVAL_SECONDS } from '../agent-claims/policy.js';
import { AGENT_SCOPES, SCOPE_DESCRIPTION } from '../agent-claims/scopes.js';
import { ASSERTION_ALGS } from '../auth/client-keys.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, READ_SCOPE } from '../auth/policy.js';
import type { AuthUrls } from '../auth/urls.js';

export const MCP_SERVER_CARD_PATH = '/.well-known/mcp/server-card.json';
export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_CONTENT_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** RFC 8414 authorization server metadata, with the `agent_auth` block (spec.md §4.6). */
export function authorizationServerMetadata(
  urls: AuthUrls,
  options: { claimAvailable: boolean } = { claimAvailable: true },
) {
  // The browser flow for agent hosts (authorization code + PKCE, issue 27) needs the site, where
  // the person signs in and answers; without it the endpoint exists (the MCP SDKs' metadata
  // schema requires it) and refuses every request with an OAuth error.
  const browserFlow = options.claimAvailable;
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorizationEndpoint,
    token_endpoint: urls.tokenEndpoint,
    registration_endpoint: urls.registrationEndpoint,
    jwks_uri: urls.jwksUri,
    // `hold` and `alerts` are only ever issued for a person who authorized the client (a claim or the
    // browser flow), as they granted.
    scopes_supported: [READ_SCOPE, ...AGENT_SCOPES],
    // Required by RFC 8414 (and by the SDKs' schema).
    response_types_supported: browserFlow ? ['code'] : [],
    // client_credentials first: what spec.md's clients use.
    grant_types_supported: browserFlow
      ? ['client_credentials', 'authorization_code', 'refresh_token']
      : ['client_credentials'],
    token_endpoint_auth_methods_supported: browserFlow
      ? ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']
      : ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    // private_key_jwt (RFC 7523 §2.2): the algorithms a client assertion may be signed with.
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGS],
    // A client_id may be an https URL serving the client's metadata (draft-ietf-oauth-client-id-metadata-document).
    client_id_metadata_document_supported: true,
    ...(browserFlow
      ? { code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true }
      : {}),
    service_documentation: urls.documentation,
    agent_auth: {
      description:
        'Optional, anonymous registration for AI agents and other programs. No human identity is asked for registration or for reading. Register once (POST registration_endpoint with {"client_name": "…"}), keep the client_id and client_secret, exchange them at token_endpoint (grant_type=client_credentials) for an ES256 access token, and send it as "Authorization: Bearer <token>" on POST /api/mcp. A client that should act for one person asks their consent through the claim (see claim).',
      identity_types_supported: ['anonymous'],
      registration_required: false,
      registration_endpoint: urls.registrationEndpoint,
      claim_endpoint: urls.claimEndpoint,
      claim_available: options.claimAvailable,
      ...(options.claimAvailable ? { claim: claimDescription(urls) } : {}),
      ...(browserFlow
        ? {
            authorization_code:
              'For agent hosts acting for the person using them (Claude, VS Code, mcp-remote…): register with grant_types ["authorization_code", "refresh_token"], redirect_uris (https, or http on the loopback interface, any port) and token_endpoint_auth_method "none"; send the person to authorization_endpoint (response_type=code, PKCE S256, state, scope "read" or "read alerts", resource); they sign in with an emailed link and approve; exchange the code (60 s, once) with its code_verifier. Access tokens act for the person like a claimed client\'s (opaque sub); refresh tokens rotate at each use, and a replayed one revokes the authorization. The person withdraws it in /mon-espace/agents.',
          }
        : {}),
      credential_type: 'client_secret',
      client_secret_expires: false,
      grant_type: 'client_credentials',
      scopes: [READ_SCOPE],
      scopes_with_claim: [...AGENT_SCOPES],
      access_token_type: 'at+jwt',
      access_token_lifetime_seconds: ACCESS_TOKEN_LIFETIME_SECONDS,
      protected_resources: [urls.mcpResource],
      tier: {
        anonymous: 'Always available, rate-limited per IP address.',
        authenticated: 'Higher rate limit on POST /api/mcp, counted per client_id instead of per IP address.',
      },
      not_granted: ['checkout', 'payment', 'customer_area', 'partner_area', 'admin_area'],
      booking: "Done by the human user on each session's bookingUrl, never through the API.",
      documentation: urls.documentation,
    },
  };
}

/** How a client comes to act for a person (issue 26), in the manner of RFC 8628. */
function claimDescription(urls: AuthUrls) {
  return {
    description:
      'Optional. A registered client that should act for one person asks their consent: POST claim_endpoint with its access token (Authorization: Bearer) and scope="hold alerts" (or one of them; read is implied). The answer gives claim_url, a page to give the person, and user_code, to read or show to them; the person signs in on that page with a link emailed to them, types the code, sees what the client may and may never do, and approves (choosing among the asked scopes) or refuses within expires_in seconds. Poll GET claim_endpoint/{claim_id} (same token) no faster than interval seconds until status is approved, denied or expired (it reads revoked once the person withdraws an approval). Then keep using client_credentials: a token asked for with scope="read hold alerts" (or the part granted) carries the person as an opaque, per-client sub (never their email). The person can withdraw the authorisation at any time; the claimed tokens are refused from the next request on (401 invalid_token).',
    endpoint: urls.claimEndpoint,
    status_endpoint: `${urls.claimEndpoint}/{claim_id}`,
    style: 'RFC 8628 device authorization (claim_url, user_code, expires_in, interval, slow_down)',
    expires_in_seconds: CLAIM_LIFETIME_SECONDS,
    poll_interval_seconds: CLAIM_POLL_INTERVAL_SECONDS,
    scopes: Object.fromEntries(AGENT_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTION[scope]])),
    what_claimed_agents_may_do:
      'With "hold": the MCP tools hold_place and release_hold, and POST /api/stages/{id}/holds, GET and DELETE /api/holds/{holdId}: hold one place of a session for the person for a short time (one per session, three at once); the person books it themselves on the hold\'s completeUrl, or it goes back on sale by itself. With "alerts": the MCP tool watches and /api/watches (email alerts for the person on a full session or a search; list and remove those they made).',
    person_approves: ['the user_code the client gave them', 'which of the asked scopes to grant'],
    one_person_per_client: true,
    never: [
      'pay',
      'book (a hold is not a booking: the person completes every booking on the site)',
      "see the person's area, reservations, name, email or phone",
    ],
    revocation:
      "By the person, in their area (/mon-espace/agents); effective at the claimed token's next request, on every instance.",
  };
}

/** RFC 9728 protected resource metadata for `resource` (the service, or the MCP endpoint). */
export function protectedResourceMetadata(urls: AuthUrls, resource: string, resourceName: string) {
  return {
    resource,
    authorization_servers: [urls.issuer],
    // Only `read`: the MCP SDKs ask for exactly these scopes in every token request, and `hold` or
    // `alerts` asked by an unclaimed client would be refused (invalid_scope).
    scopes_supported: [READ_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: resourceName,
    resource_documentation: urls.documentation,
  };
}

/** RFC 9727 API catalog: one linkset entry per API (the REST interface, the MCP server). */
export function apiCatalog(base: string) {
  const doc = [
    { href: `${base}/docs`, type: 'text/html' },
    { href: `${base}/llms.txt`, type: 'text/markdown' },
  ];
  const status = [{ href: `${base}/api/health`, type: 'application/json' }];
  return {
    linkset: [
      {
        anchor: base,
        'service-desc': [{ href: `${base}/openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }],
        'service-doc': doc,
        status,
      },
      {
        anchor: `${base}/api/mcp`,
        // The server card is machine-readable metadata about the MCP server, not a description
        // of its interface in the OpenAPI sense: RFC 8631's "service-meta" ("general metadata
        // for the context that is primarily intended for consumption by machines") fits it;
        // "describedby" would claim it describes the resource as a whole.
        'service-meta': [{ href: `${base}${MCP_SERVER_CARD_PATH}`, type: 'application/mcp-server-card+json' }],
        'service-doc': doc,
        status,
      },
    ],
  };
}
