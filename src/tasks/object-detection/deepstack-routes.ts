import type { DeepStackRoute } from '../task.js';

const DETECTION_FIELDS = {
  image: 'The image file (JPEG, PNG, WebP, …).',
  min_confidence: 'A number from 0 to 1; default 0.4 (DeepStack\'s).',
  api_key: 'The API key (or send `Authorization`).',
};
const DETECTION_ANSWER =
  '`{"success": true, "predictions": [{"label", "confidence", "x_min", "y_min", "x_max", "y_max"}], "duration", "count", "message", "command", "moduleId", "moduleName", "requestId", "inferenceDevice", "inferenceMs", "processMs", "analysisRoundTripMs", "processedBy", "timestampUTC", "code"}`, predictions highest confidence first';
const DETECTION_FAILURES = {
  '400': 'No image, a bad image or form, a bad `min_confidence`.',
  '401': 'Missing or wrong key.',
  '429': 'The service\'s rate limit or quota is spent.',
  '503': 'Overloaded or past the deadline.',
};

/** DeepStack's and CodeProject.AI's object detection, as this task answers it (each answered by the task's `respondDeepStack`). */
export const DEEPSTACK_DETECTION_ROUTES: readonly Omit<DeepStackRoute, 'respond'>[] = [
  {
    path: '/v1/vision/detection',
    command: 'detect',
    operationId: 'deepstack-detection',
    summary: 'DeepStack / CodeProject.AI object detection (the service\'s model)',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: DETECTION_FAILURES,
  },
  {
    path: '/v1/vision/custom/:model',
    command: 'custom',
    operationId: 'deepstack-custom',
    summary: 'DeepStack / CodeProject.AI object detection with a loaded model by name or alias',
    formFields: DETECTION_FIELDS,
    answer: DETECTION_ANSWER,
    failures: { ...DETECTION_FAILURES, '404': 'No loaded model has that name or alias.' },
  },
];
