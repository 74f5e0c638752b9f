import type { Service } from '../accounts/services.js';
import type { Limits } from '../config.js';
import type { ModelRegistry } from '../models/registry.js';
import { AcquireAbortedError } from '../models/resource-pool.js';
import { decodeImage, ImageDecodeError } from '../vision/decode.js';
import { type ApiVersion, parseConfigurations } from './detection-parameters.js';
import { assembleDetectionResponse, type DetectionResponse } from './detection-response.js';
import { ApiError } from './errors.js';
import { decodeRawData } from './raw-data.js';
import type { SchemaCatalogue } from './schemas.js';

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

  let stageStart = performance.now();
  const bytes = decodeRawData(request.raw_data);
  const image = await decodeImage(bytes, { maxPixels: limits.maxImagePixels }).catch((error: unknown) => {
    if (error instanceof ImageDecodeError) throw new ApiError(error.failure, error.message);
    throw error;
  });
  trace.timings.decode = performance.now() - stageStart;

  const detector = models.resolve(service.model);
  trace.model = detector.name;
  const result = await detector
    .detect(image, { minScore: parameters.confidenceThreshold, maxDetections: limits.maxDetections, signal })
    .catch((error: unknown) => {
      if (error instanceof AcquireAbortedError) {
        throw new ApiError('deadline_exceeded', `no model capacity within the ${limits.requestTimeoutMs} ms request deadline`, { 'Retry-After': '1' });
      }
      throw error;
    });
  Object.assign(trace.timings, result.timings);
  trace.objects = result.detections.length;

  stageStart = performance.now();
  const response = await assembleDetectionResponse(image, result, detector.labels, parameters);
  trace.timings.encode = performance.now() - stageStart;
  return response;
}
