import { analyseImage } from '../../../src/core/pipeline.js';
import { assembleFoundResponse } from '../../../src/tasks/found-response.js';
import { ANIMAL_DETECTION_REQUEST, ANIMAL_DETECTION_RESPONSE } from './animal-detection-schemas.js';
import { type ImageParameters, imageParameterRules, parseImageConfigurations } from '../../../src/tasks/image-parameters.js';
import type { AnalysisCall } from '../../../src/tasks/analysis-call.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../../../src/tasks/task.js';

/** The task's service type, and the kind of model it needs: one whose configuration declares `"kind": "animals"`. */
export const ANIMAL_DETECTION = 'animal-detection';
export const ANIMALS = 'animals';

/** What the model's classes an animal model keeps, and the parent every animal goes out with. */
const ANIMAL_CLASSES = new Set(['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe']);
const ANIMAL = 'animal';

const RULES = imageParameterRules({ one: 'animal', many: 'Animals' }, '0.3');

function parseParameters(sent: SentParameters, version: ApiVersion): ImageParameters {
  return parseImageConfigurations(RULES, sent.configurations, version);
}

/** The model's detections of an animal class, each named by its class with the parent `animal`. */
async function analyse(image: Buffer, parameters: ImageParameters, call: AnalysisCall): Promise<Findings> {
  const { scheduler, limits, signal, turn, context } = call;
  const fullResolution = parameters.outputCroppedImage || parameters.outputVisualizedImage;
  const analysis = await analyseImage({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold, fullResolution }, context.timings);
  try {
    const labels = scheduler.model.labels;
    const animals = analysis.detections.filter((detection) => ANIMAL_CLASSES.has(labels[detection.classIndex]));
    const names = animals.map((detection) => ({ name: labels[detection.classIndex], parent: ANIMAL }));
    const { found, visualized_image: visualizedImage } = await assembleFoundResponse(analysis, animals, names, parameters);
    return { width: analysis.width, height: analysis.height, found, tracked: animals, visualizedImage };
  } finally {
    analysis.pixels?.release();
  }
}

/**
 * A test task that is one folder (docs/development.md "Architecture"): a new answer field (`detected_animals`),
 * a new kind of model (`animals`, declared in the model's configuration), its own schemas and
 * parameters, and DeepStack's object detection. Registered by one line in a test's task table.
 */
export const animalDetectionTask: Task<ImageParameters> = {
  type: ANIMAL_DETECTION,
  detects: ANIMALS,
  summary: 'Detect animals in one image',
  requestSchema: 'animal-detection-request',
  responseSchema: 'animal-detection-response',
  schemas: [ANIMAL_DETECTION_REQUEST, ANIMAL_DETECTION_RESPONSE],
  parameters: RULES,
  answerField: 'detected_animals',
  exampleFields: { ConfidenceThreshold: '0.3' },
  parseParameters,
  analyse,
};
