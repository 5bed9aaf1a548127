/*
 * robots.txt: everything public may be read — the API included, agents that honour robots.txt are
 * its users too — but not the private pages (a reservation's secret link, the signed-in areas),
 * which no crawler has any business fetching. Named groups for AI crawlers say the same to each
 * (a crawler follows only the most specific group naming it, RFC 9309 §2.2.1), and a
 * Content-Signal line in every group says what the pages may be used for (contentsignals.org).
 */

export type ContentSignal = Partial<Record<'search' | 'ai-input' | 'ai-train', 'yes' | 'no'>>;

/** Paths no crawler should fetch: secret links, signed-in pages and the consent pages agents send people to. */
export const PRIVATE_PATHS = [
  '/reservations/',
  '/connexion',
  '/mon-espace',
  '/espace-centre',
  '/administration',
  '/api/admin/',
  '/alertes/',
  '/agents/',
] as const;

/** Assistants fetching a page for a person, and AI search engines: welcome, under the common rules. */
const AI_ASSISTANTS = [
  'OAI-SearchBot',
  'ChatGPT-User',
  'Claude-SearchBot',
  'Claude-User',
  'PerplexityBot',
  'Perplexity-User',
  'MistralAI-User',
  'DuckAssistBot',
] as const;

/** Crawlers that gather text to train models: kept out when the signal says ai-train=no. */
const TRAINING_CRAWLERS = [
  'GPTBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'Applebot-Extended',
  'Bytespider',
  'meta-externalagent',
  'cohere-training-data-crawler',
] as const;

export function robotsTxt(baseUrl: string, signal: ContentSignal): string {
  const signalLine = Object.entries(signal)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const rules = [
    ...(signalLine ? [`Content-Signal: ${signalLine}`] : []),
    'Allow: /',
    ...PRIVATE_PATHS.map((p) => `Disallow: ${p}`),
  ];
  const training =
    signal['ai-train'] === 'no'
      ? [
          '# Crawlers gathering training data: the signal says ai-train=no.',
          ...TRAINING_CRAWLERS.map((ua) => `User-agent: ${ua}`),
          ...(signalLine ? [`Content-Signal: ${signalLine}`] : []),
          'Disallow: /',
        ]
      : [
          '# Crawlers gathering training data: the same rules.',
          ...TRAINING_CRAWLERS.map((ua) => `User-agent: ${ua}`),
          ...rules,
        ];
  return [
    '# Content signals (https://contentsignals.org): search = building a search index and showing links and',
    '# short excerpts; ai-input = using the pages as input to answer a question (retrieval, grounding);',
    '# ai-train = training or fine-tuning models. yes grants, no withholds.',
    'User-agent: *',
    ...rules,
    '',
    '# AI search and assistants fetching a page for a person: welcome, under the same rules.',
    ...AI_ASSISTANTS.map((ua) => `User-agent: ${ua}`),
    ...rules,
    '',
    ...training,
    '',
    `Sitemap: ${baseUrl}/sitemap.xml`,
    '',
  ].join('\n');
}
