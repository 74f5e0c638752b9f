import type { StageTimings } from '../../core/call-context.js';
import { DetectdError } from '../../core/errors.js';
import { type AnalysisRequest, analyseImage, type ImageAnalysis } from '../../core/pipeline.js';
import type { ModelScheduler } from '../../scheduler/model-scheduler.js';
import { deepStackBox, deepStackImage } from '../deepstack-form.js';
import type { ApiVersion, DeepStackAnswer, DeepStackRequest, DeepStackSide, FrameAnalysis, FrameCall, ImageRequestBody, SentParameters, Task, TaskCall, UploadRequest } from '../task.js';
import { type DetectionParameters, detectionParameters, PARAMETER_RULES } from './parameters.js';
import { DEEPSTACK_DETECTION_ROUTES } from './deepstack-routes.js';
import { decodeRawData } from '../raw-data.js';
import { GENERIC_PARENT } from '../../models/coco-categories.js';
import type { Detector } from '../../models/types.js';
import { assembleFoundResponse, type FoundResponse, type Naming } from '../found-response.js';
import { keepTargetClasses } from './target-classes.js';

const REQUEST_SCHEMA = 'object-detection-request';

interface ObjectDetectionRequestBody extends ImageRequestBody {
  readonly target_classes?: string[];
}

/** The request without its image: what an upload's fields carry (upload-request.ts). */
type UploadedRequest = Omit<ObjectDetectionRequestBody, 'raw_data'>;

/**
 * The JSON API's answer (schemas/object-detection-response.json), in the names the Nvision
 * clients read: the service's id, the caller's frame and source labels echoed, the objects, and
 * the visualized image as `raw_data` — once, never also under another name.
 */
export interface ObjectDetectionReply {
  service_id: string;
  frame_id?: string;
  source_id?: string;
  detected_objects: FoundResponse['found'];
  raw_data?: string;
}

export interface ObjectDetectionOutcome {
  readonly analysis: ImageAnalysis;
  /** Index-aligned with `analysis.detections`. */
  readonly response: FoundResponse;
}

/** A detection's class as the wire names it: its label and the label's parent category. */
function classOf(classIndex: number, categories: Pick<Detector, 'labels' | 'parents'>): Naming {
  return { name: categories.labels[classIndex] ?? `class_${classIndex}`, parent: categories.parents[classIndex] ?? GENERIC_PARENT };
}

/**
 * Image bytes and parameters → the public response: the core pipeline, then the crops and the
 * visualization asked for. Shared by every way into this task (JSON API, uploads, stream frames, DeepStack).
 */
async function detectObjects(
  request: Omit<AnalysisRequest, 'minScore' | 'fullResolution'>,
  parameters: DetectionParameters,
  timings: StageTimings,
): Promise<ObjectDetectionOutcome> {
  const labels = request.scheduler.detector.labels;
  const fullResolution = parameters.outputCroppedImage || parameters.outputVisualizedImage;
  const found = await analyseImage({ ...request, minScore: parameters.confidenceThreshold, fullResolution }, timings);
  const analysis = { ...found, detections: keepTargetClasses(found.detections, labels, parameters.targetClasses) };
  const encodeStarted = performance.now();
  try {
    const names = analysis.detections.map((detection) => classOf(detection.classIndex, request.scheduler.detector));
    const response = await assembleFoundResponse(analysis, analysis.detections, names, parameters);
    timings.encode = performance.now() - encodeStarted;
    return { analysis: { ...analysis, pixels: undefined }, response };
  } finally {
    found.pixels?.release();
  }
}

/** validate → base64 → the reply. */
async function runJson(body: unknown, call: TaskCall): Promise<ObjectDetectionReply> {
  const validity = call.schemas.check(REQUEST_SCHEMA, body);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  const request = body as ObjectDetectionRequestBody;
  // The parameters first: a bad one is refused before megabytes of base64 are decoded.
  const parameters = requestParameters(request, call);
  const base64Started = performance.now();
  const bytes = decodeRawData(request.raw_data);
  call.context.timings.base64 = performance.now() - base64Started;
  return detectForCall(bytes, parameters, request, call);
}

/** The same reply for an image that came as bytes (a raw body or a form's file), its request from the query string or the form. */
async function runUpload(bytes: Buffer, upload: UploadRequest, call: TaskCall): Promise<ObjectDetectionReply> {
  const request = upload as UploadedRequest;
  return detectForCall(bytes, requestParameters(request, call), request, call);
}

function requestParameters(request: UploadedRequest, call: TaskCall): DetectionParameters {
  return detectionParameters(request.configurations, request.target_classes, call.version, call.scheduler.detector.labels);
}

/** parameters → detect → the reply, with the caller's labels echoed. */
async function detectForCall(bytes: Buffer, parameters: DetectionParameters, request: UploadedRequest, call: TaskCall): Promise<ObjectDetectionReply> {
  const { analysis, response } = await detectObjects({ bytes, scheduler: call.scheduler, limits: call.limits, signal: call.signal }, parameters, call.context.timings);
  call.context.objects = analysis.detections.length;
  return {
    service_id: call.service.id,
    frame_id: request.frame_id,
    source_id: request.source_id,
    detected_objects: response.found,
    raw_data: response.visualized_image,
  };
}

/** A stream's configurations and target classes → parameters, for the model's class names. */
function parseParameters(sent: SentParameters, version: ApiVersion, scheduler: ModelScheduler): DetectionParameters {
  return detectionParameters(sent.configurations, sent.targetClasses, version, scheduler.detector.labels);
}

/** One stream frame, on the stream's turn: the objects and the detections the tracker follows. */
async function analyseFrame(image: Buffer, parameters: DetectionParameters, call: FrameCall): Promise<FrameAnalysis> {
  const { analysis, response } = await detectObjects({ bytes: image, scheduler: call.scheduler, limits: call.limits, signal: call.signal, turn: call.turn }, parameters, call.context.timings);
  call.context.objects = analysis.detections.length;
  return { width: analysis.width, height: analysis.height, found: response.found, tracked: analysis.detections, visualizedImage: response.visualized_image };
}

/** DeepStack's object detection: the form's `image` at its `min_confidence` → the objects as `predictions`. */
async function respondDeepStack(request: DeepStackRequest, call: TaskCall): Promise<DeepStackAnswer> {
  const parameters = { confidenceThreshold: request.minConfidence, outputCroppedImage: false, outputVisualizedImage: false };
  const bytes = deepStackImage(request);
  const { analysis, response } = await detectObjects({ bytes, scheduler: call.scheduler, limits: call.limits, signal: call.signal }, parameters, call.context.timings);
  call.context.objects = analysis.detections.length;
  return { predictions: response.found.map((object) => ({ label: object.name, confidence: object.confidence, ...deepStackBox(object) })) };
}

/** DeepStack's object detection (deepstack-routes.ts): the service's model, or a loaded model by name or alias. */
const deepStack: DeepStackSide = { routes: DEEPSTACK_DETECTION_ROUTES.map((route) => ({ ...route, respond: respondDeepStack })) };

export const objectDetection: Task<DetectionParameters> = {
  type: 'object-detection',
  detects: 'objects',
  summary: 'Detect objects in one image',
  requestSchema: REQUEST_SCHEMA,
  responseSchema: 'object-detection-response',
  parameters: PARAMETER_RULES,
  exampleFields: { ConfidenceThreshold: '0.5' },
  answerField: 'detected_objects',
  runJson,
  runUpload,
  parseParameters,
  analyseFrame,
  deepStack,
};
