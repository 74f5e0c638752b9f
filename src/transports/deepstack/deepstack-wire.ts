import type { DetectdError } from '../../core/errors.js';
import type { Stage, StageTimings } from '../../core/call-context.js';
import type { DeepStackAnswer, DeepStackPrediction } from './deepstack-form.js';

/**
 * DeepStack's and CodeProject.AI Server's answers, as their clients parse them
 * (deepstack-python reads `predictions`; Frigate reads `predictions` and stops at the first
 * confidence below 0.4, so the order is highest confidence first; Blue Iris reads CodeProject.AI's
 * fields). Shapes from DeepStack's server source and CodeProject.AI's documented response.
 */

/** DeepStack's default `min_confidence` (its server's and its documentation's). */
export const DEEPSTACK_MIN_CONFIDENCE = 0.4;

/**
 * The fields CodeProject.AI Server adds to every answer of a module (its SDK's module runner and the
 * server's route outputs): who answered, on what device, for which request, and how long it took.
 */
export interface CodeProjectFields {
  message: string;
  /** CodeProject.AI's command: the route's (`detect` on /v1/vision/detection, `custom` on /v1/vision/custom/<model>, …), or `list-custom` (/v1/vision/custom/list). */
  command: string;
  moduleId: string;
  moduleName: string;
  /** The X-Request-Id of the call. */
  requestId: string;
  /** `CPU`, or the execution provider in use. */
  inferenceDevice: string;
  inferenceMs: number;
  processMs: number;
  analysisRoundTripMs: number;
  processedBy: string;
  timestampUTC: string;
  code: 200;
}

/** A route's answer: what it found (`predictions`, `count`) or its own fields, with the ones every answer has. */
export interface DeepStackSuccess extends CodeProjectFields {
  success: true;
  predictions?: readonly DeepStackPrediction[];
  /** DeepStack's field: milliseconds in the server. */
  duration: number;
  count?: number;
  [routeField: string]: unknown;
}

/** CodeProject.AI's `list-custom` answer: the names `/v1/vision/custom/<model>` accepts. */
export interface CustomModelList extends CodeProjectFields {
  success: true;
  models: string[];
}

export interface DeepStackFailure {
  success: false;
  error: string;
  duration: 0;
  code: number;
}

/** What every answer's CodeProject.AI fields are made of. */
export interface CallFacts {
  readonly command: CodeProjectFields['command'];
  readonly requestId: string;
  readonly inferenceDevice: string;
  readonly timings: StageTimings;
  /** performance.now() when the call arrived. */
  readonly startedAt: number;
}

const MODULE = 'detectd';
/** Stages that CodeProject.AI counts as processing (its `processMs`): everything but the queue and the reply. */
const PROCESS_STAGES: readonly Stage[] = ['decode', 'preprocess', 'inference', 'postprocess', 'recognize'];

function foundMessage(labels: readonly string[]): string {
  if (labels.length === 0) return 'No objects found';
  const distinct = [...new Set(labels)];
  return `Found ${distinct.slice(0, 3).join(', ')}${distinct.length > 3 ? '...' : ''}`;
}

function codeProjectFields(message: string, call: CallFacts): CodeProjectFields {
  return {
    message,
    command: call.command,
    moduleId: MODULE,
    moduleName: MODULE,
    requestId: call.requestId,
    inferenceDevice: call.inferenceDevice,
    inferenceMs: Math.round(call.timings.inference ?? 0),
    processMs: Math.round(PROCESS_STAGES.reduce((sum, stage) => sum + (call.timings[stage] ?? 0), 0)),
    analysisRoundTripMs: Math.round(performance.now() - call.startedAt),
    processedBy: MODULE,
    timestampUTC: new Date().toUTCString(),
    code: 200,
  };
}

export function deepStackSuccess(answer: DeepStackAnswer, call: CallFacts): DeepStackSuccess {
  const { predictions } = answer;
  const message = answer.message ?? foundMessage((predictions ?? []).flatMap((prediction) => prediction.label ?? []));
  const fields = codeProjectFields(message, call);
  const found = predictions ? { predictions, count: predictions.length } : {};
  return { success: true, ...found, ...answer.fields, duration: fields.analysisRoundTripMs, ...fields };
}

export function customModelList(models: string[], call: CallFacts): CustomModelList {
  return { success: true, models, ...codeProjectFields(`${models.length} custom model${models.length === 1 ? '' : 's'} found`, call) };
}

/**
 * A DetectdError (its `status` the catalogue's) in DeepStack's words and statuses: 401 "Incorrect
 * api key" and 400 "invalid image" as DeepStack answers them; everything else with detectd's status and message.
 */
export function deepStackFailure(error: DetectdError, status: number): { status: number; body: DeepStackFailure } {
  const text = error.code === 'unauthorized' ? `Incorrect api key: ${error.message}` : error.code === 'invalid_image' ? `invalid image: ${error.message}` : error.message;
  return { status, body: { success: false, error: text, duration: 0, code: status } };
}
