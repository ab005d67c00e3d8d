/**
 * The figures a page shows against what a command prints: the numbers of a marked paragraph, and the excerpt of a
 * plan's summary table a generated block holds.
 */

/** A figure of a sentence: `$15.58`, `1,518`, `5.1`, `2,000`; its value and the decimals it is rounded to. */
export interface Figure {
  readonly text: string;
  readonly value: number;
  readonly decimals: number;
}

/**
 * The figures of a paragraph worth checking: a price, a number with decimals or thousands, or an integer of 100 or
 * more. Smaller integers (`2 x`, `TP 8`, `p99 10 ms`) would match some number of any output by chance; code spans,
 * links, names (`inf2`, `48xlarge`, `p99`, `8B`) and dates are not figures.
 */
export function figuresOf(paragraph: string): Figure[] {
  const prose = paragraph.replace(/`[^`]*`/g, ' ').replace(/\]\([^)]*\)/g, ']').replace(/<!--.*?-->/g, ' ');
  const figures: Figure[] = [];
  for (const m of prose.matchAll(/(?<![\w.\-/:])(\$?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\w|\.\d|-\d)/g)) {
    const decimals = m[3] === undefined ? 0 : m[3].length - 1;
    const value = Number(m[2].replace(/,/g, '') + (m[3] ?? ''));
    if (m[1] === '$' || decimals > 0 || m[2].includes(',') || value >= 100) {
      figures.push({ text: m[0], value, decimals });
    }
  }
  return figures;
}

/** Every number an output prints, names and versions included (`sdk2.28.0` prints 2.28). */
export function printedNumbers(output: string): number[] {
  return [...output.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, '')));
}

/** What a plan prints about its chosen plan: everything before its alternatives, levers and rejections. */
export function chosenPart(output: string): string {
  const end = output.search(/^(Alternatives \(|Levers \(|Rejected:)/m);
  return end < 0 ? output : output.slice(0, end);
}

/** The figures of `paragraph` no number of `output` rounds to. */
export function figuresNotPrinted(paragraph: string, output: string): Figure[] {
  const printed = printedNumbers(output);
  const rounded = (n: number, decimals: number): number => Math.round(n * 10 ** decimals) / 10 ** decimals;
  return figuresOf(paragraph).filter((f) => !printed.some((n) => Math.abs(rounded(n, f.decimals) - f.value) < 1e-9));
}

/**
 * The heading of a plan and the rows of its summary table whose labels are named, as the plan prints them (the
 * table's borders kept), for a block generated from the output.
 *
 * @throws Error naming a label the table does not have
 */
export function summaryExcerpt(output: string, labels: readonly string[]): string {
  const lines = output.split('\n');
  const top = lines.findIndex((l) => l.startsWith('┌'));
  const bottom = lines.findIndex((l, i) => i > top && l.startsWith('└'));
  if (top < 0 || bottom < 0) {
    throw new Error('the output has no summary table');
  }
  const rows: string[][] = [[]];
  for (const line of lines.slice(top + 1, bottom)) {
    if (line.startsWith('├')) rows.push([]);
    else rows[rows.length - 1].push(line);
  }
  const labelOf = (row: readonly string[]): string => row[0]?.split('│')[1]?.trim() ?? '';
  const unknown = labels.filter((label) => !rows.some((row) => labelOf(row) === label));
  if (unknown.length > 0) {
    throw new Error(`the summary has no row ${unknown.map((u) => `"${u}"`).join(', ')} (it has: ${rows.map(labelOf).join(', ')})`);
  }
  const separator = lines.slice(top + 1, bottom).find((l) => l.startsWith('├')) ?? '';
  const kept = rows.filter((row) => labels.includes(labelOf(row)));
  const heading = lines[0].trim() === '' ? [] : [lines[0], ''];
  return [...heading, lines[top], ...kept.flatMap((row, i) => (i === 0 ? row : [separator, ...row])), lines[bottom]].join('\n');
}
