import { DetectdError } from '../../core/errors.js';
import { runTask } from '../../tasks/run-task.js';
import { type Task, wireFindings } from '../../tasks/task.js';
import { DEEPSTACK_MIN_CONFIDENCE } from '../../transports/deepstack/deepstack-wire.js';
import { type DeepStackRequest, type DeepStackRespond, type DeepStackTaskRoute, findingBox } from '../../transports/deepstack/deepstack-form.js';

/** CodeProject.AI's ALPR module reads its image from `upload`; its adapter takes a file in any field, and so does this door. */
const UPLOAD_FIELD = 'upload';

/** The form's fields, for a task whose default minimum confidence is `defaultMinConfidence` (its own: the plate detector's floor). */
const alprFields = (defaultMinConfidence: string) => ({
  upload: 'The image file (JPEG, PNG, WebP, …); a file in any other field is read when there is none in `upload`.',
  min_confidence: `Plates the detector is less sure of are left out: a number from 0 to 1; default ${defaultMinConfidence} (the plate task's own).`,
  api_key: 'The API key (or send `Authorization`; none from an address the service accepts keyless calls from).',
});
const ALPR_ANSWER =
  '`{"success": true, "message": "Found Plate: X" | "No plates found", "predictions": [{"confidence", "label": "Plate: X", "plate": "X", "x_min", "y_min", "x_max", "y_max", "known_name", "known_plate", "known_distance" (a known plate only)}], "count", "processMs", "inferenceMs", "command", "moduleId", …}`, plates highest detector confidence first';
const ALPR_FAILURES = {
  '400': 'No image, more than one file, a bad image or form, a bad `min_confidence`.',
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

/**
 * CodeProject.AI's ALPR: the plates of the form's image at its `min_confidence` (absent: the task's
 * own default), each as a prediction labelled `Plate: <text>`, with `known_name`, `known_plate` and
 * `known_distance` added where it matches one of the service's known plates (its clients ignore fields they do not know).
 */
function respond(task: Task): DeepStackRespond {
  return async (request, call) => {
    const parameters = task.parseParameters({ minConfidence: request.minConfidence }, undefined, call.scheduler);
    const findings = await runTask(task, alprImage(request), parameters, call);
    const predictions = wireFindings(findings).map((plate) => ({
      label: `Plate: ${plate.name}`,
      plate: plate.name,
      confidence: plate.confidence,
      ...findingBox(plate, findings),
      ...(plate.known && { known_name: plate.known.name, known_plate: plate.known.plate, known_distance: plate.known.distance }),
    }));
    const message = predictions.length === 0 ? 'No plates found' : `Found ${predictions.map((prediction) => prediction.label).join(', ')}`;
    return { predictions, message };
  };
}

/** CodeProject.AI's licence-plate reading (Blue Iris, Agent DVR, AITool, frigate_plate_recognizer call it), answered by the plate task `task`. */
export const deepStackAlprRoutes = (task: Task): DeepStackTaskRoute[] =>
  ['/v1/image/alpr', '/v1/vision/alpr'].map((path, index) => ({
    path,
    command: 'alpr',
    operationId: index === 0 ? 'codeproject-alpr' : 'codeproject-vision-alpr',
    summary: `CodeProject.AI licence-plate reading${index === 0 ? '' : ' (its vision path)'}: the service's plate detector and reader`,
    formFields: alprFields(task.parameters.ConfidenceThreshold?.defaultValue ?? String(DEEPSTACK_MIN_CONFIDENCE)),
    answer: ALPR_ANSWER,
    failures: ALPR_FAILURES,
    files: 1,
    fileField: UPLOAD_FIELD,
    respond: respond(task),
  }));
