import type { StageTimings } from '../../core/call-context.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../core/pipeline.js';
import type { Service } from '../../core/service.js';
import type { FaceRecognition } from '../face-recognition.js';
import { assembleFoundResponse, type FoundResponse } from '../found-response.js';
import type { ImageParameters } from '../image-parameters.js';
import { nameFaces } from './recognize.js';

export interface FaceOutcome {
  readonly analysis: ImageAnalysis;
  /** Index-aligned with `analysis.detections`. */
  readonly response: FoundResponse;
}

/**
 * Image bytes and parameters → the faces and who they are: the core pipeline on the service's face
 * model, recognition against the service's gallery when it has anyone (and `recognition` is given:
 * DeepStack's detection leaves it out), then the crops and the visualization (names drawn on the
 * faces) asked for. Shared by every way into this task.
 */
export async function findFaces(
  request: Omit<AnalysisRequest, 'minScore' | 'fullResolution'>,
  parameters: ImageParameters,
  service: Service,
  recognition: FaceRecognition | undefined,
  timings: StageTimings,
): Promise<FaceOutcome> {
  const matcher = await recognition?.matcher(service.id);
  const recognizer = recognition && matcher && { matcher, describe: recognition.describe.bind(recognition) };
  const fullResolution = recognizer !== undefined || parameters.outputCroppedImage || parameters.outputVisualizedImage;
  const analysis = await analyseImage({ ...request, minScore: parameters.confidenceThreshold, fullResolution }, timings);
  const names = await nameFaces(analysis, recognizer, timings);
  const encodeStarted = performance.now();
  const response = await assembleFoundResponse(analysis, analysis.detections, names, parameters);
  timings.encode = performance.now() - encodeStarted;
  return { analysis, response };
}
