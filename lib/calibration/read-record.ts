/**
 * Finding the calibration record in what `calibrate --report` is given: the capacity proof's S3 report (a smoke
 * report document), the output of `bench --plan FILE --json`, or a bare record.
 */
import { CALIBRATION_RECORD_VERSION, calibrationRecordSchema, type CalibrationRecord } from '../bench/calibration-record';
import { InputError } from '../errors';
import { formatPath, formatValue, valueAt } from '../profiles/schema';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where the record sits in the document, or why there is none. */
function locate(json: unknown, origin: string): { readonly record: unknown; readonly path: string } {
  if (!isObject(json)) {
    throw new InputError(`${origin}: expected a JSON object (a capacity-proof report or bench --json output), got ${formatValue(json)}`);
  }
  if ('writer' in json && 'plan' in json) {
    return { record: json, path: '' };
  }
  if ('calibration' in json) {
    return { record: json.calibration, path: 'calibration.' };
  }
  const capacity = json.capacity;
  if (isObject(capacity)) {
    if (typeof capacity.skipped === 'string') {
      throw new InputError(`${origin}: the capacity proof did not run (${capacity.skipped}); there is no measurement to calibrate from`);
    }
    if (capacity.calibration === undefined) {
      throw new InputError(
        `${origin}: the capacity proof's report carries no calibration record: it was written by an older ` +
          'cdk-inferentia, or the SmokeBenchmark was given no plan; give it the plan and deploy again',
      );
    }
    return { record: capacity.calibration, path: 'capacity.calibration.' };
  }
  if ('report' in json && 'settings' in json) {
    throw new InputError(
      `${origin}: a smoke report without a capacity proof; turn on capacityProof (the staging environment's ` +
        'capacityProof in environments.json) so the report measures the planned rate',
    );
  }
  if ('requests' in json && 'latencyMs' in json) {
    throw new InputError(`${origin}: bench output without a calibration record; run bench with --plan plan.json (and --rate) and --json`);
  }
  throw new InputError(`${origin}: not a capacity-proof report, bench --plan --json output, or calibration record`);
}

/**
 * The calibration record in a report document, checked against its schema.
 *
 * @param origin the report's name (file or s3:// URI), named in every problem
 * @throws InputError naming why the document holds no usable record, or every invalid field
 */
export function readCalibrationRecord(json: unknown, origin: string): CalibrationRecord {
  const { record, path } = locate(json, origin);
  const version = valueAt(record, ['schemaVersion']);
  if (version !== CALIBRATION_RECORD_VERSION) {
    throw new InputError(
      `${origin}: ${path}schemaVersion is ${formatValue(version)}; this cdk-inferentia reads version ${CALIBRATION_RECORD_VERSION}: ` +
        'use the cdk-inferentia version that wrote the report',
    );
  }
  const result = calibrationRecordSchema().safeParse(record);
  if (!result.success) {
    throw new InputError(
      result.error.issues.map(
        (issue) => `${origin}: ${path}${formatPath(issue.path)}: ${issue.message}, got ${formatValue(valueAt(record, issue.path))}`,
      ),
    );
  }
  return result.data as CalibrationRecord;
}
