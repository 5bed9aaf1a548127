import { AGENT_SKILLS_INDEX_PATH } from './agent-skills.js';
import { API_CATALOG_PATH, MCP_SERVER_CARD_PATH } from './documents.js';

/**
 * The `Link` header (RFC 8288) of the home page and the site's pages: where an agent that lands
 * on the site finds the machine-readable side — the API catalog (RFC 9727), the OpenAPI
 * description, the reference, llms.txt, the MCP server card and the agent skills.
 */
export function discoveryLinks(base: string): string {
  return [
    `<${base}${API_CATALOG_PATH}>; rel="api-catalog"; type="application/linkset+json"`,
    `<${base}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json;version=3.1"`,
    `<${base}/docs>; rel="service-doc"; type="text/html"`,
    `<${base}/llms.txt>; rel="describedby"; type="text/markdown"`,
    `<${base}${MCP_SERVER_CARD_PATH}>; rel="mcp-server-card"; type="application/mcp-server-card+json"`,
    `<${base}${AGENT_SKILLS_INDEX_PATH}>; rel="agent-skills"; type="application/json"`,
  ].join(', ');
}
