/**
 * "Did you mean": the known names closest to what a user typed, for errors that name the fix.
 */

/** Levenshtein distance, case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[t.length];
}

/** Lower case with separators dropped: `min-instances`, `min_instances` and `minInstances` squash alike. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The known name `typed` most likely meant, if any: the same but for case and separators, a prefix of at least 3
 * characters either way (`throughputRps` for `throughput`), or within 2 edits (and fewer than a third of its
 * letters, so short names do not match everything). Undefined when nothing is that close: then `typed` is taken
 * to be some other tool's name, not a slip.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const t = squash(typed);
  if (t.length === 0) return undefined;
  let best: { name: string; distance: number; gap: number } | undefined;
  for (const name of known) {
    const k = squash(name);
    const prefix = Math.min(t.length, k.length) >= 3 && (t.startsWith(k) || k.startsWith(t));
    const distance = t === k || prefix ? 0 : editDistance(t, k);
    // Among equals, the name nearest in length: `llamaInputTokensP9` means `llamaInputTokensP99`.
    const gap = Math.abs(t.length - k.length);
    if (distance <= 2 && distance * 3 < k.length
      && (best === undefined || distance < best.distance || (distance === best.distance && gap < best.gap))) {
      best = { name, distance, gap };
    }
  }
  return best?.name;
}
