import type { StageTimings } from '../../core/call-context.js';
import { DetectdError } from '../../core/errors.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../core/pipeline.js';
import type { Configuration, Task, TaskCall } from '../task.js';
import { type DetectionParameters, PARAMETER_RULES, parseConfigurations } from './parameters.js';
import { decodeRawData } from './raw-data.js';
import { assembleDetectionResponse, type DetectionResponse } from './response.js';

const REQUEST_SCHEMA = 'object-detection-request';

interface ObjectDetectionRequestBody {
  readonly raw_data: string;
  readonly configurations?: { parameter: string; value: string }[];
}

export interface ObjectDetectionOutcome {
  readonly analysis: ImageAnalysis;
  /** Index-aligned with `analysis.detections`. */
  readonly response: DetectionResponse;
}

/**
 * Image bytes and parameters → the public response: the core pipeline, then the crops and the
 * visualization asked for. Shared by every front door of this task (JSON API, video streams).
 */
export async function detectObjects(
  request: Omit<AnalysisRequest, 'minScore'>,
  parameters: DetectionParameters,
  timings: StageTimings,
): Promise<ObjectDetectionOutcome> {
  const analysis = await analyseImage({ ...request, minScore: parameters.confidenceThreshold }, timings);
  const encodeStarted = performance.now();
  const response = await assembleDetectionResponse(analysis.image, analysis.detections, request.model.detector.labels, parameters);
  timings.encode = performance.now() - encodeStarted;
  return { analysis, response };
}

/** validate → parameters → base64 → detect. */
async function runJson(body: unknown, call: TaskCall): Promise<DetectionResponse> {
  const validity = call.schemas.check(REQUEST_SCHEMA, body);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  const request = body as ObjectDetectionRequestBody;
  const parameters = parseConfigurations(request.configurations, call.version);
  const base64Started = performance.now();
  const bytes = decodeRawData(request.raw_data);
  call.context.timings.base64 = performance.now() - base64Started;
  return detectForCall(bytes, parameters, call);
}

/** parameters → detect: the image came as bytes (a raw body or a form's file). */
async function runUpload(bytes: Buffer, configurations: readonly Configuration[], call: TaskCall): Promise<DetectionResponse> {
  return detectForCall(bytes, parseConfigurations(configurations, call.version), call);
}

async function detectForCall(bytes: Buffer, parameters: DetectionParameters, call: TaskCall): Promise<DetectionResponse> {
  const { analysis, response } = await detectObjects({ bytes, model: call.model, limits: call.limits, signal: call.signal }, parameters, call.context.timings);
  call.context.objects = analysis.detections.length;
  return response;
}

export const objectDetection: Task = {
  type: 'object-detection',
  summary: 'Detect objects in one image',
  requestSchema: REQUEST_SCHEMA,
  responseSchema: 'object-detection-response',
  parameters: PARAMETER_RULES,
  runJson,
  runUpload,
};
