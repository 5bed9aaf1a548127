import type TurndownService from 'turndown';

/*
 * The site's pages in Markdown, for agents that ask for it (`Accept: text/markdown`): the page's
 * <main>, converted by Turndown from the very HTML people get, so the two never say different
 * things. Links are made absolute (a Markdown answer is read out of its page). Forms become one
 * line saying where the person acts: an agent reads the page, the person books on it.
 * Turndown (and its DOM) loads on the first Markdown request only.
 */

export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';

/** Whether the request prefers Markdown to HTML (RFC 9110 §12.5.1 quality values). */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept?.includes('markdown')) return false;
  let markdown = 0;
  let html = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const quality = q === undefined ? 1 : Number(q);
    if (type === 'text/markdown') markdown = Math.max(markdown, quality);
    else if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, quality);
  }
  return markdown > 0 && markdown >= html;
}

let converter: Promise<(html: string, base: string, path: string) => string> | undefined;

/** The page's Markdown: its <main>, and the page's address. */
export async function pageMarkdown(html: string, base: string, path: string): Promise<string> {
  converter ??= import('turndown').then(({ default: Turndown }) => makeConverter(Turndown));
  return (await converter)(html, base, path);
}

function makeConverter(Turndown: typeof TurndownService) {
  return (html: string, base: string, path: string): string => {
    const service = new Turndown({ headingStyle: 'atx', bulletListMarker: '-', codeBlockStyle: 'fenced' });
    service.remove(['script', 'style', 'noscript']);
    // Text stays text: a centre named "<script>…" must not become HTML in a Markdown renderer that allows it.
    const escapeMarkdown = service.escape.bind(service);
    service.escape = (text: string) => escapeMarkdown(text).replace(/[<>]/g, (c) => `\\${c}`);
    service.addRule('absolute-links', {
      filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
      replacement: (content, node) => {
        const href = (node as HTMLElement).getAttribute('href') as string;
        const text = content.trim();
        return text ? `[${text}](${absolute(href, base, path)})` : '';
      },
    });
    // A definition list as "**term** : definition" lines, as people read facts.
    service.addRule('terms', {
      filter: 'dt',
      replacement: (content) => `\n**${content.trim()}** : `,
    });
    service.addRule('definitions', {
      filter: 'dd',
      replacement: (content, node) => `${content.trim()}${(node as HTMLElement).nextElementSibling ? '  \n' : '\n\n'}`,
    });
    // Side-by-side spans (price, places left) that the stylesheet sets apart.
    service.addRule('side-by-side', {
      filter: (node) => node.nodeName === 'SPAN' && node.nextElementSibling?.nodeName === 'SPAN',
      replacement: (content) => `${content} · `,
    });
    service.addRule('forms', {
      filter: 'form',
      replacement: (_content, node) => `\n\n${formLine(node as HTMLElement, base, path)}\n\n`,
    });
    const main = /<main\b[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? html;
    return `${service.turndown(main).trim()}\n\nPage : ${base}${path}\n`;
  };
}

/** What a form is for, in one line: the search's parameters, or where the person books. */
function formLine(form: HTMLElement, base: string, path: string): string {
  if ((form.getAttribute('method') ?? 'get').toLowerCase() === 'get') {
    const names = [...form.querySelectorAll('input[name], select[name]')]
      .map((field) => field.getAttribute('name'))
      .filter((name): name is string => Boolean(name));
    const action = absolute(form.getAttribute('action') ?? path, base, path);
    return `Rechercher : ${action}?${[...new Set(names)].map((n) => `${n}=…`).join('&')}`;
  }
  return `Réservation : sur cette page, ${base}${path}, par la personne elle-même (nom, email, téléphone).`;
}

function absolute(href: string, base: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  return new URL(href, `${base}${path}`).toString();
}
