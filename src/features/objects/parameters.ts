import type { ApiVersion, SentParameters } from '../../tasks/task.js';
import { type ImageParameters, imageParameterRules, parseImageParameters } from '../../tasks/image-parameters.js';
import { targetClassesOf } from './target-classes.js';

export interface DetectionParameters extends ImageParameters {
  /** Only objects of these class names are returned; undefined: every class (target-classes.ts). */
  targetClasses?: ReadonlySet<string>;
}

/** Every configuration parameter: the single table behind validation, defaults and docs. */
export const PARAMETER_RULES = imageParameterRules({ one: 'object', many: 'Objects' }, '0.1');

/** Parameters as sent (configurations, classes to keep, a door's minimum confidence) → the parameters, for the model's class names; 400 on any problem. */
export function detectionParameters(sent: SentParameters, version: ApiVersion | undefined, labels: readonly string[]): DetectionParameters {
  return { ...parseImageParameters(PARAMETER_RULES, sent, version), targetClasses: targetClassesOf(sent.classes, labels) };
}
