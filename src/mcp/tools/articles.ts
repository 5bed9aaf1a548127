import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ARTICLE_TOPICS, ArticleSchema, ArticleSummarySchema } from '../../articles/articles.js';
import { argumentsObject, choiceField, countField, optionalTextField, textField } from '../../catalogue/fields.js';
import { tellAnswerScope } from '../answer-scope.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { iconsOf } from '../icons.js';

const ARTICLES_MAX = 50;

const ListInput = argumentsObject({
  topic: choiceField('topic', ARTICLE_TOPICS).describe('Only articles on this topic.'),
  query: optionalTextField('query', 200).describe('Words that must all appear (French), e.g. "48N".'),
  limit: countField('limit', ARTICLES_MAX, 20).describe('Articles to list.'),
});

const ListOutput = z.object({
  count: z.int().min(0),
  articles: z.array(ArticleSummarySchema),
});

const GetInput = argumentsObject({
  slug: textField('slug', 200, 'an article slug, as given by list_articles').describe('Slug, from list_articles.'),
});

/** The articles are read once at start: no catalogue change alters an answer about them. */
function tellArticlesOnly(ctx: ToolContext): void {
  tellAnswerScope({ version: ctx.catalogue.snapshot.version, scope: { depts: [], centres: false }, updatedAtIso: '' });
}

export function registerArticleTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_articles',
    {
      title: 'List articles',
      icons: iconsOf(ctx.publicBaseUrl, 'article'),
      description:
        'French articles on the rules: who may take a course, how often, probationary licence, 48N, when points come back, prices. Use them, not guesses.',
      inputSchema: cachedJsonSchema(ListInput),
      // Each article as a plain object: get_article describes the record in full.
      outputSchema: cachedJsonSchema(ListOutput, { opaque: ['articles'] }),
      annotations: READ_ONLY,
    },
    async ({ topic, query, limit }) => {
      tellArticlesOnly(ctx);
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
      title: 'Get an article',
      icons: iconsOf(ctx.publicBaseUrl, 'article'),
      description:
        'An article (French) by slug, from list_articles: its Markdown body, revision date, legal sources to cite.',
      inputSchema: cachedJsonSchema(GetInput),
      outputSchema: cachedJsonSchema(ArticleSchema, { opaque: ['sources'] }),
      annotations: READ_ONLY,
    },
    async ({ slug }) => {
      tellArticlesOnly(ctx);
      const article = ctx.articles.get(slug.toLowerCase());
      if (!article)
        return toolError(`No article has the slug "${slug}". Use list_articles to see the available slugs.`);
      const sources = article.sources.map((s) => `- ${s.title}${s.url ? ` (${s.url})` : ''}`).join('\n');
      return result(article, `# ${article.title}\n\n${article.body}\n\nSources:\n${sources}`);
    },
  );
}
