import { createHash } from 'node:crypto';
import { API_CATALOG_PATH, MCP_SERVER_CARD_PATH } from './documents.js';

/*
 * Agent Skills discovery (the well-known index of agentskills.io, discovery schema 0.2.0): one
 * skill, a SKILL.md that tells an agent how to search, check and hand over `bookingUrl`. Its
 * digest is computed from the very bytes served, so the two cannot drift.
 */

export const AGENT_SKILLS_INDEX_PATH = '/.well-known/agent-skills/index.json';
export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const SKILL_NAME = 'find-points-recovery-course';
export const SKILL_PATH = `/.well-known/agent-skills/${SKILL_NAME}/SKILL.md`;

const DESCRIPTION =
  'Find a French driving-licence points-recovery course ("stage de récupération de points"): search upcoming two-day sessions by place, dates, price and weekday, check that places are still left, and hand the person the session\'s bookingUrl. Use when someone in France wants to recover licence points, has received a 48N letter, or asks for a course near a town.';

export interface AgentSkill {
  /** The SKILL.md, exactly as served. */
  markdown: Buffer;
  /** The index document, serialised. */
  index: string;
}

export function agentSkill(base: string, platformName: string): AgentSkill {
  const markdown = Buffer.from(skillMarkdown(base, platformName));
  const digest = `sha256:${createHash('sha256').update(markdown).digest('hex')}`;
  const index = {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: [{ name: SKILL_NAME, type: 'skill-md', description: DESCRIPTION, url: `${base}${SKILL_PATH}`, digest }],
  };
  return { markdown, index: JSON.stringify(index) };
}

function skillMarkdown(base: string, platformName: string): string {
  return `---
name: ${SKILL_NAME}
description: ${JSON.stringify(DESCRIPTION)}
---

# Find a points-recovery course (${platformName})

A course ("stage") is two consecutive days in a prefecture-approved centre and gives back up to
4 points. This service lists every upcoming session in real time. You never book or pay: the
person books on the session's \`bookingUrl\`.

## 1. Search

Either the MCP server at \`${base}/api/mcp\` (tool \`search_stages\`) or REST:

    GET ${base}/api/stages?near=Villeurbanne&radiusKm=30&maxPrice=250&days=saturday&sort=price

- Place: \`near\` (a town as people write it, "69100 Villeurbanne", "Saint-Denis 93", or
  \`lat,lng\`) with \`radiusKm\`; or \`city\`, \`dept\` (code), \`region\`.
- Dates \`from\`/\`to\` (YYYY-MM-DD), \`maxPrice\` (euros), \`days\` (weekdays), \`sort\` (date, price, distance).
- Pages: pass \`nextCursor\` back as \`cursor\`. \`total\` counts every match.
- A 400 names the bad parameter. When \`near\` fits several places, \`errors[0].candidates\` lists
  them: ask the person which one, then search again with that candidate's \`near\`.

## 2. Check before handing over

Places go fast. Right before you give the link, read the session again:
\`GET ${base}/api/stages/{id}\` or the tool \`check_availability\`. Its status is \`available\`,
\`full\`, \`past\` or \`cancelled\`; \`spotsAvailable\` is what is left now.

## 3. Hand over

Give the person the session's \`bookingUrl\` with the dates, hours, centre, address and price.
They enter their own details there; the centre confirms and takes payment. Never ask for their
name, email or licence number.

## Limits and more

- Anonymous use is rate-limited per address; an OAuth client (\`client_credentials\`, see
  \`${base}/.well-known/oauth-authorization-server\`) gets a higher limit on the MCP server.
- Changes as they happen: \`GET ${base}/api/stages/events\` (Server-Sent Events).
- Everything else: ${base}/llms.txt, ${base}/openapi.json, ${base}${API_CATALOG_PATH},
  ${base}${MCP_SERVER_CARD_PATH}.
`;
}
