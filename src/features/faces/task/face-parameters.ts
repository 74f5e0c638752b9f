import { DetectdError } from '../../../core/errors.js';
import { type ImageParameters, imageParameterRules, parseImageParameters } from '../../../tasks/image-parameters.js';
import type { ApiVersion, SentParameters } from '../../../tasks/task.js';

/** The face task's parameters: the Nvision three; faces have no classes to choose among. */
export const FACE_PARAMETER_RULES = imageParameterRules({ one: 'face', many: 'Faces' }, '0.5');

/** The face task's parameters: classes to keep (object classes) have no meaning for faces, so a non-empty list is refused rather than ignored. */
export function faceParameters(sent: SentParameters, version: ApiVersion | undefined): ImageParameters {
  if (sent.classes && sent.classes.length > 0) {
    throw new DetectdError('invalid_request', 'target_classes chooses object classes; a face-detection service finds faces only: leave it out');
  }
  return parseImageParameters(FACE_PARAMETER_RULES, sent, version);
}
