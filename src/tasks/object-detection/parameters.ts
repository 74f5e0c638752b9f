import type { ApiVersion, Configuration } from '../task.js';
import { type ImageParameters, imageParameterRules, parseImageConfigurations } from '../image-parameters.js';
import { targetClassesOf } from './target-classes.js';

export interface DetectionParameters extends ImageParameters {
  /** Only objects of these class names are returned; undefined: every class (target-classes.ts). */
  targetClasses?: ReadonlySet<string>;
}

/** Every configuration parameter: the single table behind validation, defaults and docs. */
export const PARAMETER_RULES = imageParameterRules({ one: 'object', many: 'Objects' }, '0.1');

/** Configurations → typed parameters with defaults; 400 on any problem. */
export function parseConfigurations(configurations: readonly Configuration[] | undefined, version: ApiVersion): DetectionParameters {
  return parseImageConfigurations(PARAMETER_RULES, configurations, version);
}

/** A request's configurations and `target_classes` → its parameters, as the JSON API and both streams take them. */
export function detectionParameters(
  configurations: readonly Configuration[] | undefined,
  targetClasses: readonly string[] | undefined,
  version: ApiVersion,
  labels: readonly string[],
): DetectionParameters {
  return { ...parseConfigurations(configurations, version), targetClasses: targetClassesOf(targetClasses, labels) };
}
