import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchorsOf, docFiles, githubSlug, linksOf } from '../support/markdown-docs.js';

/** What is wrong with one link, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...: not checked offline
  const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (resolved.startsWith('..')) return `points outside the repository`;
  if (!existsSync(join(ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
  if (!anchorsOf(resolved).has(decodeURIComponent(anchor))) return `${resolved} has no heading or id for #${anchor}`;
  return undefined;
}

describe('links in README.md and docs/', () => {
  it('every relative link and #anchor resolves', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const link of linksOf(file)) {
        const why = brokenLink(file, link.target);
        if (why) broken.push(`${file}:${link.line} (${link.target}): ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the links of every page (the check is not vacuous)', () => {
    const files = docFiles();
    expect(files).toContain('README.md');
    expect(files).toContain('docs/troubleshooting.md');
    expect(linksOf('README.md').map((link) => link.target)).toContain('docs/benchmarks.md');
  });

  it('reports a missing file and a missing anchor', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toBe('docs/no-such-page.md does not exist');
    expect(brokenLink('README.md', 'docs/troubleshooting.md#no-such-heading')).toBe('docs/troubleshooting.md has no heading or id for #no-such-heading');
    expect(brokenLink('README.md', 'docs/troubleshooting.md#storelockederror')).toBeUndefined();
    expect(brokenLink('docs/node.md', '../README.md#quick-start-in-node')).toBeUndefined();
  });
});

describe("GitHub's heading anchors", () => {
  it('lower-cases, drops punctuation and symbols, keeps letters, digits, _ and -, numbers repeats', () => {
    const seen = new Map<string, number>();
    expect(githubSlug('LangChain.js: engram/langchain', seen)).toBe('langchainjs-engramlangchain');
    expect(githubSlug('Export, import and forgetting', seen)).toBe('export-import-and-forgetting');
    expect(githubSlug('observe() did not store facts', seen)).toBe('observe-did-not-store-facts');
    expect(githubSlug('What the user waits for → first answer', seen)).toBe('what-the-user-waits-for--first-answer');
    expect(githubSlug('Zürich_2 über-alles', seen)).toBe('zürich_2-über-alles');
    expect(githubSlug('Export, import and forgetting', seen)).toBe('export-import-and-forgetting-1');
  });
});
