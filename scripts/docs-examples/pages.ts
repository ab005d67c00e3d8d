/**
 * What the hand-written pages (README.md, docs/*.md) say the CLI does: every `cdk-inferentia` command they show, in
 * fenced shell blocks or inline, and the two markers that tie the text to a command's output (see
 * `scripts/docs-examples.ts` for how they are checked):
 *
 * - `<!-- docs:figures -->` before a paragraph: every figure in it is printed by the page's last command run before
 *   it, in its chosen plan (before the alternatives); `<!-- docs:figures: cdk-inferentia plan ...; cdk-inferentia
 *   plan ... -->` names the commands instead (a table of several plans, or a command of another page), each figure
 *   printed by one of them; `docs:figures all` takes figures from the whole output (an alternative, a rejection);
 * - `<!-- docs:output rows="instance type, cost" -->` before a fenced block: the block is generated from the output of
 *   the page's last command run before it (`npm run docs:examples` writes it), its heading and the summary rows named.
 */

/** One command as a page writes it. */
export interface PageCommand {
  /** 1-based line where it starts. */
  readonly line: number;
  /** As written, continuation lines joined. */
  readonly text: string;
  /** The arguments after `cdk-inferentia`. */
  readonly argv: readonly string[];
  /** The file its stdout is redirected to (`> plan.json`). */
  readonly stdoutTo?: string;
  /** Shown inline in a sentence rather than in a shell block. */
  readonly inline: boolean;
}

/** A paragraph whose figures must be printed by a command. */
export interface FiguresMarker {
  readonly kind: 'figures';
  /** Line of the marker. */
  readonly line: number;
  /** The commands named in the marker (`;` between them), or none for the page's last command run before it. */
  readonly commands: readonly PageCommand[];
  /**
   * The figures may come from anywhere in the output (`docs:figures all`: a rejected candidate, an alternative);
   * without it, from the chosen plan only (what a plan prints before its alternatives), so that a figure of the old
   * plan that is now an alternative's still shows as stale.
   */
  readonly anywhere: boolean;
  /** The paragraph after the marker, as written. */
  readonly paragraph: string;
}

/** A fenced block generated from a command's output. */
export interface OutputMarker {
  readonly kind: 'output';
  readonly line: number;
  /** Labels of the summary rows shown, in the output's order. */
  readonly rows: readonly string[];
  /** Lines of the block's body: from `start` (0-based, after the opening fence) up to `end` (its closing fence). */
  readonly start: number;
  readonly end: number;
  /** The body as the page has it. */
  readonly body: string;
}

export type PageMarker = FiguresMarker | OutputMarker;

/** Everything of one page, in page order. */
export interface Page {
  readonly path: string;
  readonly lines: readonly string[];
  /** Commands and markers in the order they appear. */
  readonly items: ReadonlyArray<{ readonly command: PageCommand } | { readonly marker: PageMarker }>;
}

const FENCE = /^\s*(`{3,})(\S*)/;
const SHELL_LANGUAGES = ['', 'sh', 'bash', 'shell', 'console'];
const CLI = /^(?:npx\s+)?cdk-inferentia\s/;

/**
 * Splits one shell line into commands (`&&`, `;`, `|`), each its words and its stdout redirect, comments dropped;
 * `<...>` is a placeholder inside a word, as the pages use it, not an input redirect.
 */
export function shellCommands(text: string): Array<{ words: string[]; stdoutTo?: string }> {
  const commands: Array<{ words: string[]; stdoutTo?: string }> = [];
  let words: string[] = [];
  let word: string | undefined;
  let redirect = false;
  let stdoutTo: string | undefined;
  const endWord = (): void => {
    if (word === undefined) return;
    if (redirect) {
      stdoutTo = word;
      redirect = false;
    } else {
      words.push(word);
    }
    word = undefined;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push({ words, ...(stdoutTo !== undefined ? { stdoutTo } : {}) });
    words = [];
    stdoutTo = undefined;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      const end = close < 0 ? text.length : close;
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '<' && text.indexOf('>', i) > i) {
      // `<digest>`: a placeholder the reader fills in, not a redirect.
      const end = text.indexOf('>', i);
      word = (word ?? '') + text.slice(i, end + 1);
      i = end;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[i + 1];
      i += 1;
    } else if (/\s/.test(c)) {
      endWord();
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === '>') {
      endWord();
      redirect = true;
    } else if (c === ';' || c === '|' || (c === '&' && text[i + 1] === '&')) {
      endCommand();
      i += c === '&' ? 1 : 0;
    } else {
      word = (word ?? '') + c;
    }
  }
  endCommand();
  return commands;
}

/** The `cdk-inferentia` commands of a piece of shell text starting at `line`. */
function cliCommands(text: string, line: number, inline: boolean): PageCommand[] {
  return shellCommands(text).flatMap(({ words, stdoutTo }) => {
    const start = words[0] === 'npx' ? 1 : 0;
    if (words[start] !== 'cdk-inferentia') return [];
    return [{ line, text: text.trim(), argv: words.slice(start + 1), inline, ...(stdoutTo !== undefined ? { stdoutTo } : {}) }];
  });
}

/** `rows="a, b"` of a marker. */
function rowsOf(marker: string): string[] {
  const m = /rows="([^"]*)"/.exec(marker);
  return m === null ? [] : m[1].split(',').map((r) => r.trim()).filter(Boolean);
}

/** The page's commands and markers. */
export function readPage(path: string, text: string): Page {
  const lines = text.split('\n');
  const items: Array<{ command: PageCommand } | { marker: PageMarker }> = [];
  let i = 0;
  while (i < lines.length) {
    const fence = FENCE.exec(lines[i]);
    if (fence !== null) {
      const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[1]) && l.trim().replace(/`/g, '') === '');
      const end = close < 0 ? lines.length : close;
      if (SHELL_LANGUAGES.includes(fence[2])) {
        for (let j = i + 1; j < end; j += 1) {
          const first = j;
          let joined = lines[j];
          while (/\\\s*$/.test(joined) && j + 1 < end) {
            j += 1;
            joined = joined.replace(/\\\s*$/, ' ') + lines[j];
          }
          if (CLI.test(joined.trim().replace(/^\$\s+/, ''))) {
            items.push(...cliCommands(joined.trim().replace(/^\$\s+/, ''), first + 1, false).map((command) => ({ command })));
          }
        }
      }
      i = end + 1;
      continue;
    }
    const marker = /^<!--\s*docs:(figures|output)(\s+all)?(:?)(.*?)-->\s*$/.exec(lines[i].trim());
    if (marker !== null) {
      if (marker[1] === 'figures') {
        let end = i + 1;
        while (end < lines.length && lines[end].trim() !== '') end += 1;
        const named = marker[3] === ':' ? cliCommands(marker[4].trim(), i + 1, true) : [];
        items.push({ marker: {
          kind: 'figures', line: i + 1, paragraph: lines.slice(i + 1, end).join('\n'), commands: named, anywhere: marker[2] !== undefined,
        } });
      } else {
        const open = i + 1;
        const openFence = FENCE.exec(lines[open] ?? '');
        const close = openFence === null ? -1 : lines.findIndex((l, j) => j > open && l.trim() === openFence[1]);
        if (openFence === null || close < 0) {
          throw new Error(`${path}:${i + 1}: a docs:output marker must be followed by a fenced block`);
        }
        items.push({ marker: { kind: 'output', line: i + 1, rows: rowsOf(marker[4]), start: open + 1, end: close, body: lines.slice(open + 1, close).join('\n') } });
      }
      i += 1;
      continue;
    }
    // Inline commands: a code span that runs `cdk-inferentia` with at least one flag (a bare `cdk-inferentia plan`
    // names the command in a sentence). A span may wrap over lines of the paragraph.
    let paragraphEnd = i;
    while (paragraphEnd < lines.length && lines[paragraphEnd].trim() !== '' && FENCE.exec(lines[paragraphEnd]) === null
      && !/^<!--/.test(lines[paragraphEnd].trim())) {
      paragraphEnd += 1;
    }
    if (paragraphEnd === i) {
      i += 1;
      continue;
    }
    const paragraph = lines.slice(i, paragraphEnd).join('\n');
    for (const m of paragraph.matchAll(/`((?:npx )?cdk-inferentia [^`]*--[^`]*)`/g)) {
      const line = i + 1 + paragraph.slice(0, m.index).split('\n').length - 1;
      items.push(...cliCommands(m[1].replace(/\s+/g, ' '), line, true).map((command) => ({ command })));
    }
    i = paragraphEnd;
  }
  return { path, lines, items };
}
