import { Layout, type SiteInfo } from './layout.js';
import { renderPage } from './render.js';

const TITLES: Record<number, string> = {
  404: 'Page introuvable',
  429: 'Trop de requêtes',
  500: 'Erreur du service',
  503: 'Service indisponible',
};

export function ErrorPage({ site, status, message }: { site: SiteInfo; status: number; message?: string }) {
  const title = TITLES[status] ?? (status < 500 ? 'Requête invalide' : 'Erreur du service');
  return (
    <Layout site={site} title={title} description={title}>
      <h1>{title}</h1>
      <p>
        {message ??
          (status === 404
            ? 'Cette page n’existe pas ou plus. Un stage passé ou retiré n’a plus de page.'
            : status === 429
              ? 'Vous avez fait beaucoup de demandes en peu de temps. Réessayez dans une minute.'
              : status >= 500
                ? 'Le service n’a pas pu répondre. Réessayez dans un instant.'
                : 'Cette demande n’a pas pu être traitée.')}
      </p>
      <p>
        <a href="/">Chercher un stage</a> · <a href="/articles">Lire les articles</a>
      </p>
    </Layout>
  );
}

/** The error page for a status and an optional message: the site's, the reservations' and the error handler's. */
export function siteErrorPage(site: SiteInfo, status: number, message?: string): string {
  return renderPage(<ErrorPage site={site} status={status} message={message} />);
}
