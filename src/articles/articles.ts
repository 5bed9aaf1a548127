import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { searchKey } from '../catalogue/text.js';

export const ARTICLE_TOPICS = [
  'stage',
  'points',
  'permis-probatoire',
  'prix',
  'reservation',
  'centres',
  'outre-mer',
  'faq',
] as const;

const SourceSchema = z.object({
  title: z.string().min(1).describe('Legal text or reference.'),
  url: z.url().optional().describe('Where to read it, when known.'),
});

export const ArticleSummarySchema = z.object({
  slug: z.string().describe('Identifier to pass to get_article.'),
  title: z.string(),
  summary: z.string().describe('One or two sentences.'),
  topic: z.enum(ARTICLE_TOPICS),
  tags: z.array(z.string()),
  updatedAt: z.iso.date().describe('Date of the last revision (YYYY-MM-DD).'),
});

export const ArticleSchema = ArticleSummarySchema.extend({
  body: z.string().describe('Full text, Markdown, in French.'),
  sources: z.array(SourceSchema).describe('Legal texts the article rests on.'),
});

export type ArticleSummary = z.output<typeof ArticleSummarySchema>;
export type Article = z.output<typeof ArticleSchema>;

const FrontMatterSchema = ArticleSummarySchema.extend({
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  // YAML reads an unquoted date as a Date.
  updatedAt: z.union([z.iso.date(), z.date().transform((d) => d.toISOString().slice(0, 10))]),
  sources: z.array(SourceSchema).min(1),
});

export const ARTICLES_DIR = fileURLToPath(new URL('../../content/articles', import.meta.url));

/** The articles, read once at start from Markdown files with YAML front matter. */
export class ArticleLibrary {
  readonly #bySlug: Map<string, Article>;
  readonly #searchText: Map<string, string>;

  private constructor(articles: Article[]) {
    const sorted = [...articles].sort((a, b) => (a.slug < b.slug ? -1 : 1));
    this.#bySlug = new Map(sorted.map((a) => [a.slug, a]));
    this.#searchText = new Map(
      sorted.map((a) => [a.slug, searchKey(`${a.title} ${a.summary} ${a.tags.join(' ')} ${a.body}`)]),
    );
  }

  /** Reads every `*.md` in `dir`; a malformed article stops the start with its file name. */
  static async load(dir: string = ARTICLES_DIR): Promise<ArticleLibrary> {
    const files = (await readdir(dir)).filter((f) => f.endsWith('.md')).sort();
    const articles = await Promise.all(
      files.map(async (file) => parseArticle(file, await readFile(join(dir, file), 'utf8'))),
    );
    return new ArticleLibrary(articles);
  }

  get size(): number {
    return this.#bySlug.size;
  }

  get(slug: string): Article | undefined {
    return this.#bySlug.get(slug);
  }

  /** Articles matching a topic and/or words of `query` (all words, ignoring case and accents). */
  list(filter: { topic?: string | undefined; query?: string | undefined; limit: number }): ArticleSummary[] {
    const words = filter.query ? searchKey(filter.query).split(' ').filter(Boolean) : [];
    const out: ArticleSummary[] = [];
    for (const a of this.#bySlug.values()) {
      if (filter.topic && a.topic !== filter.topic) continue;
      const text = this.#searchText.get(a.slug) as string;
      if (!words.every((w) => text.includes(w))) continue;
      out.push({
        slug: a.slug,
        title: a.title,
        summary: a.summary,
        topic: a.topic,
        tags: a.tags,
        updatedAt: a.updatedAt,
      });
      if (out.length >= filter.limit) break;
    }
    return out;
  }
}

export function parseArticle(file: string, text: string): Article {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (!match) throw new Error(`${file}: missing YAML front matter`);
  const front = FrontMatterSchema.safeParse(parseYaml(match[1] as string));
  if (!front.success) {
    throw new Error(
      `${file}: invalid front matter: ${front.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  if (`${front.data.slug}.md` !== file)
    throw new Error(`${file}: slug "${front.data.slug}" does not match the file name`);
  return { ...front.data, body: (match[2] as string).trim() };
}
