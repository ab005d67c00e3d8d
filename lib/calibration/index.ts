/**
 * Calibration from the proof: a run measured against a plan (the capacity proof's report, or `bench --plan --json`)
 * and the profile the plan was made from become a calibrated profile. Pure: reading the report is the caller's.
 */
export {
  calibrateProfile,
  SATURATED_SHARE,
  MIN_CALIBRATION_REQUESTS,
  MIN_PLANNED_SHARE,
  MAX_NON_LOAD_ERROR_RATE,
  LOAD_ERROR_KINDS,
  HOST_WORK_PERCENTILE,
  type CalibrateOptions,
  type CalibrationResult,
} from './calibrate';
export { readCalibrationRecord } from './read-record';
export { describeCalibration } from './describe';
