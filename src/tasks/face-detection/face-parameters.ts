import { DetectdError } from '../../core/errors.js';
import { type ImageParameters, imageParameterRules, parseImageConfigurations } from '../image-parameters.js';
import type { ApiVersion, Configuration } from '../task.js';

/** The face task's parameters: the Nvision three; faces have no classes to choose among. */
export const FACE_PARAMETER_RULES = imageParameterRules({ one: 'face', many: 'Faces' }, '0.5');

function parseFaceConfigurations(configurations: readonly Configuration[] | undefined, version: ApiVersion): ImageParameters {
  return parseImageConfigurations(FACE_PARAMETER_RULES, configurations, version);
}

/** A stream's parameters: `target_classes` (object classes) has no meaning for faces, so a non-empty one is refused rather than ignored. */
export function faceParameters(configurations: readonly Configuration[] | undefined, targetClasses: readonly string[] | undefined, version: ApiVersion): ImageParameters {
  if (targetClasses && targetClasses.length > 0) {
    throw new DetectdError('invalid_request', 'target_classes chooses object classes; a face-detection service finds faces only: leave it out');
  }
  return parseFaceConfigurations(configurations, version);
}
