/**
 * The rows the performance model is fitted to (every published row it can use: `published-rows.ts`), and the rows a
 * profile's estimates rest on (its anchors, its nearest rows, its extrapolation class).
 */
import { PUBLISHED_MODELS, PUBLISHED_ROWS } from '../published';
import type { GenerativeProfile } from '../types';
import { publishedFitRows } from './published-rows';
import type { FitRow } from './rows';
import { profileFitRows } from './rows';

let fitted: readonly FitRow[] | undefined;

/** Every row the model is fitted to. */
export function fitRows(): readonly FitRow[] {
  fitted ??= publishedFitRows(PUBLISHED_ROWS, PUBLISHED_MODELS);
  return fitted;
}

/**
 * The rows known when planning `profile`: every fitted row, and the profile's own rows that are not among them (a
 * profile file's measurements anchor its model as published rows anchor a built-in one). A built-in profile's rows are
 * published rows: their sources begin with the published row's citation.
 */
export function knownRows(profile: GenerativeProfile): readonly FitRow[] {
  const all = fitRows();
  const own = profileFitRows(profile).filter((r) => !all.some((p) => r.source.startsWith(p.source)));
  return own.length === 0 ? all : [...all, ...own];
}
