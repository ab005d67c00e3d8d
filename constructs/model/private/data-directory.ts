import * as fs from 'fs';
import * as path from 'path';
import { Size } from 'aws-cdk-lib';

/** What `ModelData.fromAsset` learns about a model directory at synth. */
export interface ModelDirectory {
  /** Absolute path. */
  readonly path: string;
  /** Total bytes of the regular files in it (symlinks followed, as the asset zip follows them). */
  readonly bytes: number;
}

/**
 * Checks that `dir` is a directory with at least one file, and measures it.
 *
 * @returns the directory, or the problem in user terms
 */
export function inspectModelDirectory(dir: string): ModelDirectory | string {
  const absolute = path.resolve(dir);
  const named = absolute === dir ? JSON.stringify(dir) : `${JSON.stringify(dir)} (${absolute})`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    return `ModelData.fromAsset(path): path=${named} does not exist; pass the directory holding the model files `
      + '(relative paths resolve from the directory `cdk synth` runs in)';
  }
  if (!stat.isDirectory()) {
    return `ModelData.fromAsset(path): path=${named} is a file, not a directory; pass the directory that holds it `
      + '(SageMaker receives the directory uncompressed under /opt/ml/model)';
  }
  const bytes = directoryBytes(absolute, new Set());
  if (bytes.files === 0) {
    return `ModelData.fromAsset(path): path=${named} contains no files; put the model files (e.g. model.pt, `
      + 'code/inference.py) in it';
  }
  return { path: absolute, bytes: bytes.total };
}

/** Sums file sizes, following symlinks (Hugging Face snapshots link into a blob cache) but never a loop. */
function directoryBytes(dir: string, seen: Set<string>): { total: number; files: number } {
  const real = fs.realpathSync(dir);
  if (seen.has(real)) {
    return { total: 0, files: 0 };
  }
  seen.add(real);
  let total = 0;
  let files = 0;
  for (const entry of fs.readdirSync(dir)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path.join(dir, entry));
    } catch {
      continue; // a dangling symlink holds no bytes
    }
    if (stat.isDirectory()) {
      const inner = directoryBytes(path.join(dir, entry), seen);
      total += inner.total;
      files += inner.files;
    } else if (stat.isFile()) {
      total += stat.size;
      files += 1;
    }
  }
  return { total, files };
}

/** Lambda's largest ephemeral storage. */
export const MAX_LAMBDA_STORAGE_MIB = 10240;

/**
 * Ephemeral storage the upload Lambda needs for a directory of `bytes`: the zip and its extraction side by side,
 * plus headroom; in whole GiB above Lambda's 512 MiB default, so models of similar size share one handler.
 */
export function uploadStorageMiB(bytes: number): number {
  const mib = Math.ceil((2 * bytes) / 1024 ** 2) + 512;
  return mib <= 512 ? 512 : Math.ceil(mib / 1024) * 1024;
}

/** {@link uploadStorageMiB} as a Lambda setting; undefined keeps the default, shared with other BucketDeployments. */
export function uploadStorage(bytes: number): Size | undefined {
  const mib = uploadStorageMiB(bytes);
  return mib === 512 ? undefined : Size.mebibytes(mib);
}
