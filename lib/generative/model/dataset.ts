/**
 * The rows the performance model is fitted to, and the rows a profile's estimates rest on (its anchors, its nearest
 * rows, its extrapolation class): every built-in profile's decoder rows.
 */
import { BUILT_IN_GENERATIVE_PROFILES } from '../../profiles/data/generative';
import type { GenerativeProfile } from '../types';
import type { FitRow } from './rows';
import { profileFitRows } from './rows';

let fitted: readonly FitRow[] | undefined;

/** Every row the model is fitted to. */
export function fitRows(): readonly FitRow[] {
  fitted ??= BUILT_IN_GENERATIVE_PROFILES.flatMap(profileFitRows);
  return fitted;
}

/**
 * The rows known when planning `profile`: every fitted row, and the profile's own rows where they are not among them
 * (a profile file's measurements anchor its model as published rows anchor a built-in one).
 */
export function knownRows(profile: GenerativeProfile): readonly FitRow[] {
  const all = fitRows();
  if (all.some((r) => r.model === profile.id)) {
    return all;
  }
  return [...all, ...profileFitRows(profile)];
}
