/**
 * Broken relative links in Markdown pages: a link to a file that is not there, or to an anchor (`page.md#section`,
 * `#section`) that no heading of the page makes. `npm run docs:check` runs it over the generated API reference and
 * the hand-written pages, so a renamed heading or a moved page cannot leave a dead link behind.
 *
 * Anchors are GitHub's: a heading's text, lowercased, with punctuation other than `-` and `_` dropped and spaces
 * made dashes, numbered `-1`, `-2` when repeated on the page (github-slugger, which GitHub and typedoc-plugin-markdown
 * follow); an explicit `<a id="...">` or `<a name="...">` counts too.
 *
 * @see https://github.com/Flet/github-slugger
 */
import * as fs from 'fs';
import * as path from 'path';

/** One dead link: the page and line it is on, and what is wrong with it. */
export interface BrokenLink {
  readonly page: string;
  readonly line: number;
  readonly link: string;
  readonly problem: string;
}

/** GitHub's anchor for a heading's text (before numbering repeats). */
export function headingSlug(text: string): string {
  const plain = text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .replace(/\\(.)/g, '$1');
  return plain.toLowerCase().trim().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The page with its fenced code blocks blanked, line breaks kept so line numbers stay right. */
function withoutFences(text: string): string {
  return text.replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n {0,3}\2[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** The page's text outside fenced code blocks and inline code. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** Every anchor a page defines. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const slug = headingSlug(m[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/**
 * The broken relative links of `pages` (paths under `root`). Links to the web (`https:`, `mailto:`) are not
 * followed; a link to a folder must name an existing one.
 */
export function brokenLinks(root: string, pages: readonly string[]): BrokenLink[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string): Set<string> => {
    let found = anchors.get(file);
    if (found === undefined) {
      found = anchorsOf(fs.readFileSync(file, 'utf8'));
      anchors.set(file, found);
    }
    return found;
  };
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const file = path.join(root, page);
    const lines = prose(fs.readFileSync(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const link = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [target, anchor] = link.split('#', 2);
        const targetFile = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
        const problem = !fs.existsSync(targetFile)
          ? `${path.relative(root, targetFile)} does not exist`
          : anchor !== undefined && targetFile.endsWith('.md') && !anchorsIn(targetFile).has(decodeURIComponent(anchor))
            ? `${path.relative(root, targetFile)} has no heading for #${anchor}`
            : undefined;
        if (problem !== undefined) broken.push({ page, line: i + 1, link, problem });
      }
    });
  }
  return broken;
}

/** Every Markdown file under `dir` (relative to `root`), node_modules and dot-folders left out. */
export function markdownFiles(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(root, rel);
    return entry.name.endsWith('.md') ? [rel] : [];
  });
}
