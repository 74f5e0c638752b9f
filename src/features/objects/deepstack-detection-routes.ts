import type { Task } from '../../tasks/task.js';
import type { DeepStackRespond, DeepStackTaskRoute } from '../../transports/deepstack/deepstack-form.js';
import { IMAGE_ROUTE_FAILURES, predictionsOf } from '../../transports/deepstack/deepstack-predictions.js';
import { DEEPSTACK_MIN_CONFIDENCE } from '../../transports/deepstack/deepstack-wire.js';

const DETECTION_FIELDS = {
  image: 'The image file (JPEG, PNG, WebP, …).',
  min_confidence: 'A number from 0 to 1; default 0.4 (DeepStack\'s).',
  api_key: 'The API key (or send `Authorization`).',
};
const DETECTION_ANSWER =
  '`{"success": true, "predictions": [{"label", "confidence", "x_min", "y_min", "x_max", "y_max"}], "duration", "count", "message", "command", "moduleId", "moduleName", "requestId", "inferenceDevice", "inferenceMs", "processMs", "analysisRoundTripMs", "processedBy", "timestampUTC", "code"}`, predictions highest confidence first';
const DETECTION_FAILURES = IMAGE_ROUTE_FAILURES;

/** DeepStack's detection: the form's `image` at its `min_confidence` (no crops, no drawing) → what was found as `predictions`, each with its `label`. */
function respond(task: Task): DeepStackRespond {
  return async (request, call) => {
    const { predictions } = await predictionsOf(task, request, call, DEEPSTACK_MIN_CONFIDENCE);
    return { predictions };
  };
}

/** DeepStack's and CodeProject.AI's object detection, answered by the object task `task`: the service's model, or a loaded model by name or alias. */
export const deepStackDetectionRoutes = (task: Task): DeepStackTaskRoute[] => [
  {
    path: '/v1/vision/detection',
    command: 'detect',
    operationId: 'deepstack-detection',
    summary: 'DeepStack / CodeProject.AI object detection (the service\'s model)',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: DETECTION_FAILURES,
    respond: respond(task),
  },
  {
    path: '/v1/vision/custom/:model',
    command: 'custom',
    operationId: 'deepstack-custom',
    summary: 'DeepStack / CodeProject.AI object detection with a loaded model by name or alias',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: { ...DETECTION_FAILURES, '404': 'No loaded model has that name or alias.' },
    respond: respond(task),
  },
];
