import { DetectdError } from '../../core/errors.js';
import { runTask } from '../../tasks/run-task.js';
import type { Task } from '../../tasks/task.js';
import { deepStackBox, type DeepStackRequest, type DeepStackTaskRoute } from './deepstack-form.js';

/** CodeProject.AI's ALPR module reads its image from `upload`; its adapter takes a file in any field, and so does this door. */
const UPLOAD_FIELD = 'upload';

const ALPR_FIELDS = {
  upload: 'The image file (JPEG, PNG, WebP, …); a file in any other field is read when there is none in `upload`.',
  api_key: 'The API key (or send `Authorization`; none from an address the service accepts keyless calls from).',
};
const ALPR_ANSWER =
  '`{"success": true, "message": "Found Plate: X" | "No plates found", "predictions": [{"confidence", "label": "Plate: X", "plate": "X", "x_min", "y_min", "x_max", "y_max"}], "count", "processMs", "inferenceMs", "command", "moduleId", …}`, plates highest detector confidence first';
const ALPR_FAILURES = {
  '400': 'No image, a bad image or form.',
  '401': 'Missing or wrong key.',
  '429': 'The service\'s rate limit or quota is spent.',
  '503': 'Overloaded, past the deadline, or no plate reader loaded.',
};

/** The plate image of the form: `upload`'s, else the first file sent. */
function alprImage(request: DeepStackRequest): Buffer {
  const image = request.images.find((file) => file.field === UPLOAD_FIELD) ?? request.images[0];
  if (!image) throw new DetectdError('invalid_multipart', 'No valid image file found');
  return image.bytes;
}

/** CodeProject.AI's ALPR: the plates of the form's image at the task's default confidence, each as a prediction labelled `Plate: <text>`. */
function respond(task: Task): DeepStackTaskRoute['respond'] {
  return async (request, call) => {
    const parameters = task.parseParameters({}, 'v1', call.scheduler);
    const { found } = await runTask(task, alprImage(request), parameters, call);
    const predictions = found.map((plate) => ({ label: `Plate: ${plate.name}`, plate: plate.name, confidence: plate.confidence, ...deepStackBox(plate.bounding_box) }));
    const message = predictions.length === 0 ? 'No plates found' : `Found ${predictions.map((prediction) => prediction.label).join(', ')}`;
    return { predictions, message };
  };
}

/** CodeProject.AI's licence-plate reading (Blue Iris, Agent DVR, AITool, frigate_plate_recognizer call it), for a task that offers it (DeepStackCapabilities.plates). */
export const deepStackAlprRoutes = (task: Task): DeepStackTaskRoute[] =>
  ['/v1/image/alpr', '/v1/vision/alpr'].map((path, index) => ({
    path,
    command: 'alpr',
    operationId: index === 0 ? 'codeproject-alpr' : 'codeproject-vision-alpr',
    summary: `CodeProject.AI licence-plate reading${index === 0 ? '' : ' (its vision path)'}: the service's plate detector and reader`,
    formFields: ALPR_FIELDS,
    answer: ALPR_ANSWER,
    failures: ALPR_FAILURES,
    files: 1,
    respond: respond(task),
  }));
