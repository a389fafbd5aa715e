import MarkdownIt, { type Token } from 'markdown-it';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every Markdown page under docs/ (not the generated API reference in docs/api/), as paths from the root. */
export function docFiles(): string[] {
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== 'docs/api') walk(path);
      } else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return ['README.md', ...pages.sort()];
}

const markdown = new MarkdownIt({ html: true });
const parsed = new Map<string, Token[]>();

/** markdown-it's tokens of a page (CommonMark, as GitHub reads it). */
export function tokensOf(file: string): Token[] {
  let tokens = parsed.get(file);
  if (!tokens) {
    tokens = markdown.parse(readFileSync(join(ROOT, file), 'utf8'), {});
    parsed.set(file, tokens);
  }
  return tokens;
}

/** What a heading reads as: its text and the contents of its code spans, without the Markdown around them. */
function plainText(inline: Token): string {
  return (inline.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
}

/**
 * GitHub's anchor for a heading (github-slugger): lower case, every
 * character that is not a letter, mark, number, connector punctuation,
 * space or hyphen removed, spaces turned into hyphens; a repeated anchor
 * gets -1, -2, ...
 */
export function githubSlug(text: string, seen: Map<string, number>): string {
  const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

/** Every anchor a page has: its headings' (GitHub's slugs) and any `id` or `name` of its HTML. */
export function anchorsOf(file: string): Set<string> {
  const tokens = tokensOf(file);
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(githubSlug(plainText(tokens[i + 1]!), seen));
    if (token.type === 'html_block' || token.type === 'html_inline') {
      for (const match of token.content.matchAll(/\s(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    }
    for (const child of token.children ?? []) {
      if (child.type === 'html_inline') for (const match of child.content.matchAll(/\s(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    }
  });
  return anchors;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Every link and image target of a page, outside code, with its line (1-based). */
export function linksOf(file: string): Link[] {
  const links: Link[] = [];
  for (const token of tokensOf(file)) {
    const line = (token.map?.[0] ?? 0) + 1;
    for (const child of token.children ?? []) {
      const target = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
      if (target !== null) links.push({ file, line, target });
    }
  }
  return links;
}

export interface CodeBlock {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  /** The fence's language, e.g. `ts`. */
  language: string;
  /** The words after it, e.g. `runnable`. */
  tags: string[];
  code: string;
}

/** Every fenced code block of a page. */
export function codeBlocksOf(file: string): CodeBlock[] {
  return tokensOf(file)
    .filter((token) => token.type === 'fence')
    .map((token) => {
      const [language = '', ...tags] = token.info.trim().split(/\s+/);
      return { file, line: (token.map?.[0] ?? 0) + 1, language, tags, code: token.content };
    });
}

/** A path from the root, for messages. */
export function fromRoot(path: string): string {
  return relative(ROOT, path);
}
