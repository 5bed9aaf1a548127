import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ARTICLE_TOPICS, ArticleSchema, ArticleSummarySchema } from '../../articles/articles.js';
import { argumentsObject, choiceField, countField, optionalTextField, textField } from '../../catalogue/fields.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { READ_ONLY, result, type ToolContext, toolError } from '../context.js';

const ARTICLES_MAX = 50;

const ListInput = argumentsObject({
  topic: choiceField('topic', ARTICLE_TOPICS).describe('Only articles on this topic.'),
  query: optionalTextField('query', 200).describe(
    'Words that must all appear in the article (French; case and accents ignored), e.g. "48N" or "permis probatoire".',
  ),
  limit: countField('limit', ARTICLES_MAX, 20).describe(`Maximum number of articles, 1 to ${ARTICLES_MAX}.`),
});

const ListOutput = z.object({
  count: z.int().min(0),
  articles: z.array(ArticleSummarySchema),
});

const GetInput = argumentsObject({
  slug: textField('slug', 200, 'an article slug, as given by list_articles').describe(
    'The article slug, from list_articles.',
  ),
});

export function registerArticleTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_articles',
    {
      title: 'List guidance articles',
      description:
        'List the service’s articles (in French) about points-recovery courses: how a course works, who may take one and how often, the probationary licence and the 48N letter, the two days, when points are credited, prices, cancellation, checking one’s points balance, choosing an approved centre, overseas departments, court-ordered courses, and an FAQ. Filter by topic or words. Returns slug, title, summary, topic, tags and revision date; read one with get_article. Use these to answer questions about the rules rather than guessing.',
      inputSchema: cachedJsonSchema(ListInput),
      outputSchema: cachedJsonSchema(ListOutput),
      annotations: { title: 'List articles', ...READ_ONLY },
    },
    async ({ topic, query, limit }) => {
      const articles = ctx.articles.list({ topic, query, limit });
      const text =
        articles.length === 0
          ? 'No article matches. Try fewer words, or no topic.'
          : articles.map((a) => `- ${a.title} (slug ${a.slug}, ${a.topic}, ${a.updatedAt}): ${a.summary}`).join('\n');
      return result({ count: articles.length, articles }, text);
    },
  );

  server.registerTool(
    'get_article',
    {
      title: 'Read a guidance article',
      description:
        'Read one article (in French) by its slug: title, summary, full Markdown body, revision date and the legal texts it rests on (Code de la route articles, arrêtés). Get slugs from list_articles. Quote or summarise it for the user, citing its sources.',
      inputSchema: cachedJsonSchema(GetInput),
      outputSchema: cachedJsonSchema(ArticleSchema),
      annotations: { title: 'Get an article', ...READ_ONLY },
    },
    async ({ slug }) => {
      const article = ctx.articles.get(slug.toLowerCase());
      if (!article)
        return toolError(`No article has the slug "${slug}". Use list_articles to see the available slugs.`);
      const sources = article.sources.map((s) => `- ${s.title}${s.url ? ` (${s.url})` : ''}`).join('\n');
      return result(article, `# ${article.title}\n\n${article.body}\n\nSources:\n${sources}`);
    },
  );
}
