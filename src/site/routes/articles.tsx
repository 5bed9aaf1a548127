import type { ArticleLibrary } from '../../articles/articles.js';
import { renderPageBytes } from '../../web/page-bytes.js';
import type { SiteContext } from '../context.js';
import { ArticlePage, ArticlesPage } from '../pages/articles.js';

/** GET /articles and /articles/:slug: the list of articles, and each one's page. */
export function articleRoutes({ app, site, page }: SiteContext, articles: ArticleLibrary): void {
  const all = articles.list({ limit: Number.MAX_SAFE_INTEGER });
  // The articles never change while the service runs: their Markdown is rendered once, when the
  // first article is asked for, not at start (markdown-it and its entity tables are about 60 ms of a
  // start's CPU). The route waits for it before its page is rendered.
  let articleHtml = new Map<string, string>();
  let rendering: Promise<void> | undefined;
  const rendered = async () => {
    rendering ??= import('markdown-it').then(({ default: MarkdownIt }) => {
      const markdown = new MarkdownIt({ html: false, linkify: true });
      articleHtml = new Map(
        all.map((a) => {
          const article = articles.get(a.slug);
          return [a.slug, article ? markdown.render(article.body) : ''];
        }),
      );
    });
    await rendering;
  };

  app.get(
    '/articles',
    { schema: { hide: true } },
    page(() => ({ status: 200, body: renderPageBytes(<ArticlesPage site={site} articles={all} />) })),
  );

  app.get(
    '/articles/:slug',
    { schema: { hide: true }, preHandler: rendered },
    page((request) => {
      const { slug } = request.params as { slug: string };
      const article = articles.get(slug);
      if (!article) return undefined;
      return {
        status: 200,
        body: renderPageBytes(<ArticlePage site={site} article={article} bodyHtml={articleHtml.get(slug) ?? ''} />),
      };
    }),
  );
}
