import { DetectdError } from '../../core/errors.js';
import type { Detection } from '../../models/types.js';

/**
 * `target_classes` → the class names to keep, checked against the model's labels; undefined
 * (keep every class) when absent or empty, as in the Nvision API. An unknown name is refused
 * with the list of valid ones, so that a typo is not silently an empty result.
 */
export function targetClassesOf(names: readonly string[] | undefined, labels: readonly string[]): ReadonlySet<string> | undefined {
  if (!names || names.length === 0) return undefined;
  const known = new Set(labels);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new DetectdError(
      'invalid_request',
      `target_classes: unknown class ${unknown.map((name) => JSON.stringify(name)).join(', ')}; this model's classes are ${[...known].join(', ')}`,
    );
  }
  return new Set(names);
}

/** The detections whose class is one of `targets` (all when `targets` is undefined), order kept. */
export function keepTargetClasses(detections: readonly Detection[], labels: readonly string[], targets: ReadonlySet<string> | undefined): readonly Detection[] {
  return targets ? detections.filter((detection) => targets.has(labels[detection.classIndex])) : detections;
}
