import type { FaceRecognition } from '../gallery/face-recognition.js';
import type { ImageParameters } from '../../../tasks/image-parameters.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../../../tasks/task.js';
import { FACE_PARAMETER_RULES, faceParameters } from './face-parameters.js';
import { findFaces } from './find-faces.js';
import type { ComposedModels } from '../../../core/service-scheduler.js';
import type { Detector } from '../../../models/types.js';
import { FACE_DESCRIBER, FACE_DETECTOR, FACE_LANDMARKER } from './describe-face.js';

/**
 * The face-detection task: Nvision's face service type (`POST /api/v1/face-detection`, both
 * streams with the faces in `detected_faces`), with recognition against each service's gallery of
 * people, which it keeps (the feature's People cards and routes manage it). A face's `name` is the registered person's name when recognized,
 * `unknown` when the service has people but none matches, `face` when it has nobody registered;
 * `parent` is always `face`.
 */
/** The face task's service type. */
export const FACE_DETECTION = 'face-detection';

export function faceDetectionTask(recognition: FaceRecognition, models: ComposedModels): Task<ImageParameters, Detector> {
  return {
    type: FACE_DETECTION,
    lead: FACE_DETECTOR,
    composes: [FACE_LANDMARKER, FACE_DESCRIBER],
    summary: 'Detect faces in one image, and recognize registered people',
    // The detector's confidence says it is a face, not who it is (that is the match's similarity).
    confidenceName: 'Face confidence',
    requestSchema: 'face-detection-request',
    responseSchema: 'face-detection-response',
    parameters: FACE_PARAMETER_RULES,
    answerField: 'detected_faces',
    exampleFields: { ConfidenceThreshold: '0.5' },
    // A face task shows nothing on dog.jpg.
    examplePhoto: { file: 'face.jpg', description: 'a photo of a face' },
    parseParameters(sent: SentParameters, version: ApiVersion | undefined): ImageParameters {
      return faceParameters(sent, version);
    },
    async analyse(image: Buffer, parameters: ImageParameters, call: AnalysisCall<Detector>): Promise<Findings> {
      const { analysis, response } = await findFaces(image, parameters, call, recognition, models);
      return { width: analysis.width, height: analysis.height, found: response.found, visualizedImage: response.visualized_image };
    },
  };
}
