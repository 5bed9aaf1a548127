import type { ComponentChildren } from 'preact';
import type { Config } from '../config.js';
import { KeptMarkup, kept } from './kept-markup.js';
import { insertMarkup } from './page-bytes.js';
import { JsonLdText, jsonLdText } from './render.js';
import { STYLESHEET_PATH } from './stylesheet.js';

export interface SiteInfo {
  /** The platform's name, shown in the header and titles. */
  name: string;
  /** Absolute base of the service, for canonical links and structured data. */
  baseUrl: string;
}

export function siteInfo(config: Pick<Config, 'platformName' | 'publicBaseUrl'>): SiteInfo {
  return { name: config.platformName, baseUrl: config.publicBaseUrl };
}

export interface LayoutProps {
  site: SiteInfo;
  title: string;
  description: string;
  /** Path of this page, for the canonical link; omitted on error pages. */
  canonicalPath?: string;
  /** Filtered search results are not worth indexing; their links are. */
  noindex?: boolean;
  /** schema.org objects (or their JsonLdText), one JSON-LD block each. */
  jsonLd?: unknown[];
  /** Machine-readable alternative of the page (the API answer it is built from). */
  alternateJson?: string;
  children: ComponentChildren;
}

/** The header every page begins with: the platform's name and the main navigation. */
function Header({ name }: { name: string }) {
  return (
    <div class="bar">
      <a class="brand" href="/">
        {name}
      </a>
      <nav aria-label="Navigation principale">
        <ul>
          <li>
            <a href="/">Trouver un stage</a>
          </li>
          <li>
            <a href="/articles">Articles</a>
          </li>
          <li>
            {/* The eligibility page (agents/eligibility/page.tsx, ELIGIBILITY_PATH). */}
            <a href="/peut-on-faire-un-stage">Puis-je faire un stage ?</a>
          </li>
        </ul>
      </nav>
    </div>
  );
}

/** The footer every page ends with. */
function Footer() {
  return (
    <>
      <p>
        Stages de récupération de points dans des centres agréés par les préfectures. Les places et les prix sont ceux
        du moment.
      </p>
      <p>
        Pour les applications et les agents : <a href="/openapi.json">API (OpenAPI)</a> ·{' '}
        <a href="/llms.txt">llms.txt</a> · <a href="/sitemap.xml">plan du site</a>
      </p>
    </>
  );
}

// The same on every page of a platform: rendered once, kept (by the platform's name for the header).
const headers = new KeptMarkup<string>(64 * 1024);
const footers = new KeptMarkup<string>(16 * 1024);

export function Layout(props: LayoutProps) {
  const { site } = props;
  return (
    <html lang="fr">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ${site.name}`}</title>
        <meta name="description" content={props.description} />
        {props.noindex ? <meta name="robots" content="noindex, follow" /> : null}
        {props.canonicalPath !== undefined ? (
          <link rel="canonical" href={`${site.baseUrl}${props.canonicalPath}`} />
        ) : null}
        {props.alternateJson ? <link rel="alternate" type="application/json" href={props.alternateJson} /> : null}
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        {(props.jsonLd ?? []).map((data) => (
          // Raw on purpose: JSON-LD escaped by jsonLdText, never catalogue markup
          <script
            type="application/ld+json"
            dangerouslySetInnerHTML={{ __html: data instanceof JsonLdText ? insertMarkup(data) : jsonLdText(data) }}
          />
        ))}
      </head>
      <body>
        <a class="skip" href="#contenu">
          Aller au contenu
        </a>
        {kept({
          tag: 'header',
          attrs: { class: 'site' },
          cache: headers,
          of: site.name,
          render: () => <Header name={site.name} />,
        })}
        <main id="contenu">{props.children}</main>
        {kept({ tag: 'footer', attrs: { class: 'site' }, cache: footers, of: '', render: Footer })}
      </body>
    </html>
  );
}
