import type { Article, ArticleSummary } from '../../articles/articles.js';
import { frenchDate } from '../../web/format.js';
import { Layout, type SiteInfo } from '../../web/layout.js';

export function ArticlesPage({ site, articles }: { site: SiteInfo; articles: readonly ArticleSummary[] }) {
  return (
    <Layout
      site={site}
      title="Articles"
      description="Tout comprendre sur les stages de récupération de points : déroulement, prix, permis probatoire, crédit des points."
      canonicalPath="/articles"
    >
      <h1>Articles</h1>
      <p class="lead">Ce qu’il faut savoir avant de réserver un stage de récupération de points.</p>
      <ul class="plain">
        {articles.map((a) => (
          <li class="session">
            <h2>
              <a href={`/articles/${a.slug}`}>{a.title}</a>
            </h2>
            <p>{a.summary}</p>
          </li>
        ))}
      </ul>
    </Layout>
  );
}

export function ArticlePage({ site, article, bodyHtml }: { site: SiteInfo; article: Article; bodyHtml: string }) {
  return (
    <Layout site={site} title={article.title} description={article.summary} canonicalPath={`/articles/${article.slug}`}>
      <p>
        <a href="/articles">← Tous les articles</a>
      </p>
      <h1>{article.title}</h1>
      <p class="lead">{article.summary}</p>
      {/* Raw on purpose: Markdown rendered by markdown-it with raw HTML disabled */}
      <div class="article-body" dangerouslySetInnerHTML={{ __html: bodyHtml }} />
      <section aria-labelledby="sources">
        <h2 id="sources">Textes de référence</h2>
        <ul>
          {article.sources.map((s) => (
            <li>{s.url ? <a href={s.url}>{s.title}</a> : s.title}</li>
          ))}
        </ul>
      </section>
      <p>Mis à jour le {frenchDate(article.updatedAt)}.</p>
    </Layout>
  );
}
