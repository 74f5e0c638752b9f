import type { Service } from '../../accounts/services.js';
import type { Limits } from '../../config.js';
import type { ModelRegistry } from '../../models/registry.js';
import type { Detection, Detector } from '../../models/types.js';
import { AcquireAbortedError } from '../../scheduler/resource-pool.js';
import { decodeImage, ImageDecodeError } from '../../vision/decode.js';
import { type ApiVersion, type DetectionParameters, parseConfigurations } from './parameters.js';
import { assembleDetectionResponse, type DetectionResponse } from './response.js';
import { ApiError } from '../../core/errors.js';
import { decodeRawData } from './raw-data.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';

export interface ObjectDetectionDependencies {
  readonly models: ModelRegistry;
  readonly schemas: SchemaCatalogue;
  readonly limits: Limits;
}

export interface DetectionRequestTrace {
  /** Milliseconds per stage, filled in as the request moves on. */
  readonly timings: Record<string, number>;
  model?: string;
  objects?: number;
}

/**
 * One detection request, transport-free: validate → parse configurations → base64 → decode →
 * model → assemble. Every failure is an ApiError with its code from the error table.
 */
export async function detectObjects(
  body: unknown,
  version: ApiVersion,
  service: Service,
  dependencies: ObjectDetectionDependencies,
  signal: AbortSignal,
  trace: DetectionRequestTrace,
): Promise<DetectionResponse> {
  const { models, schemas, limits } = dependencies;
  const validity = schemas.check('object-detection-request', body);
  if (!validity.ok) throw new ApiError('invalid_request', validity.problem);
  const request = body as { raw_data: string; configurations?: { parameter: string; value: string }[] };
  const parameters = parseConfigurations(request.configurations, version);
  const bytes = decodeRawData(request.raw_data);
  const analysisLimits = { maxPixels: limits.maxImagePixels, maxDetections: limits.maxDetections, timeoutMs: limits.requestTimeoutMs };
  const { response } = await analyseImage(bytes, parameters, models.resolve(service.model), analysisLimits, signal, trace);
  return response;
}

export interface AnalysisLimits {
  readonly maxPixels: number;
  readonly maxDetections: number;
  /** Only for the message of `deadline_exceeded`: the deadline behind `signal`. */
  readonly timeoutMs: number;
}

export interface ImageAnalysis {
  readonly width: number;
  readonly height: number;
  /** The detector's own result (boxes in image pixels), index-aligned with `response.detected_objects`. */
  readonly detections: readonly Detection[];
  readonly response: DetectionResponse;
}

/**
 * Image bytes → decoded → model → public response; shared by the image API and the video
 * stream. Timings of each stage land in `trace`.
 */
export async function analyseImage(
  bytes: Buffer,
  parameters: DetectionParameters,
  detector: Detector,
  limits: AnalysisLimits,
  signal: AbortSignal,
  trace: DetectionRequestTrace,
): Promise<ImageAnalysis> {
  let stageStart = performance.now();
  const image = await decodeImage(bytes, { maxPixels: limits.maxPixels }).catch((error: unknown) => {
    if (error instanceof ImageDecodeError) throw new ApiError(error.failure, error.message);
    throw error;
  });
  trace.timings.decode = performance.now() - stageStart;

  trace.model = detector.name;
  const result = await detector
    .detect(image, { minScore: parameters.confidenceThreshold, maxDetections: limits.maxDetections, signal })
    .catch((error: unknown) => {
      if (error instanceof AcquireAbortedError) {
        throw new ApiError('deadline_exceeded', `no model capacity within the ${limits.timeoutMs} ms deadline`, { 'Retry-After': '1' });
      }
      throw error;
    });
  Object.assign(trace.timings, result.timings);
  trace.objects = result.detections.length;

  stageStart = performance.now();
  const response = await assembleDetectionResponse(image, result, detector.labels, parameters);
  trace.timings.encode = performance.now() - stageStart;
  return { width: image.width, height: image.height, detections: result.detections, response };
}
