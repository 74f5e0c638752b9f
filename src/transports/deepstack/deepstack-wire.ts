import { type DetectdError, ERROR_CATALOGUE } from '../../core/errors.js';
import type { StageTimings } from '../../core/call-context.js';
import type { DetectedObject } from '../../tasks/detected-object.js';

/**
 * DeepStack's and CodeProject.AI Server's object-detection answers, as their clients parse them
 * (deepstack-python reads `predictions`; Frigate reads `predictions` and stops at the first
 * confidence below 0.4, so the order is highest confidence first; Blue Iris reads CodeProject.AI's
 * fields). Shapes from DeepStack's server source and CodeProject.AI's documented response.
 */

/** DeepStack's default `min_confidence` (its server's and its documentation's). */
export const DEEPSTACK_MIN_CONFIDENCE = 0.4;

export interface Prediction {
  label: string;
  confidence: number;
  x_min: number;
  y_min: number;
  x_max: number;
  y_max: number;
}

export interface DeepStackSuccess {
  success: true;
  predictions: Prediction[];
  /** DeepStack's field: milliseconds in the server. */
  duration: number;
  // CodeProject.AI Server's additions.
  count: number;
  message: string;
  command: string;
  moduleId: string;
  moduleName: string;
  inferenceMs: number;
  processMs: number;
  analysisRoundTripMs: number;
  processedBy: string;
  timestampUTC: string;
  code: 200;
}

export interface DeepStackFailure {
  success: false;
  error: string;
  duration: 0;
  code: number;
}

const MODULE = 'detectd';
/** Stages that CodeProject.AI counts as processing (its `processMs`): everything but the queue and the reply. */
const PROCESS_STAGES = ['decode', 'preprocess', 'inference', 'postprocess'];

function foundMessage(labels: readonly string[]): string {
  if (labels.length === 0) return 'No objects found';
  const distinct = [...new Set(labels)];
  return `Found ${distinct.slice(0, 3).join(', ')}${distinct.length > 3 ? '...' : ''}`;
}

export function deepStackSuccess(
  objects: readonly DetectedObject[],
  details: { command: DeepStackSuccess['command']; timings: StageTimings; startedAt: number },
): DeepStackSuccess {
  const predictions = objects.map(({ name, confidence, bounding_box: box }) => ({
    label: name,
    confidence,
    x_min: box.left,
    y_min: box.top,
    x_max: box.right,
    y_max: box.bottom,
  }));
  const roundTrip = Math.round(performance.now() - details.startedAt);
  return {
    success: true,
    predictions,
    duration: roundTrip,
    count: predictions.length,
    message: foundMessage(predictions.map((prediction) => prediction.label)),
    command: details.command,
    moduleId: MODULE,
    moduleName: MODULE,
    inferenceMs: Math.round(details.timings.inference ?? 0),
    processMs: Math.round(PROCESS_STAGES.reduce((sum, stage) => sum + (details.timings[stage] ?? 0), 0)),
    analysisRoundTripMs: roundTrip,
    processedBy: MODULE,
    timestampUTC: new Date().toUTCString(),
    code: 200,
  };
}

/**
 * A DetectdError in DeepStack's words and statuses: 401 "Incorrect api key" and 400 "invalid
 * image" as DeepStack answers them; everything else with detectd's status and message.
 */
export function deepStackFailure(error: DetectdError): { status: number; body: DeepStackFailure } {
  const status = ERROR_CATALOGUE[error.code].status;
  const text = error.code === 'unauthorized' ? `Incorrect api key: ${error.message}` : error.code === 'invalid_image' ? `invalid image: ${error.message}` : error.message;
  return { status, body: { success: false, error: text, duration: 0, code: status } };
}
