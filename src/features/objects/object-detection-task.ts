import { analyseImage } from '../../core/pipeline.js';
import { GENERIC_PARENT } from '../../models/coco-categories.js';
import { OBJECT_DETECTOR } from '../../models/registry.js';
import type { Detector } from '../../models/types.js';
import type { ModelScheduler } from '../../scheduler/model-scheduler.js';
import { assembleFoundResponse, type Naming } from '../../tasks/found-response.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../../tasks/task.js';
import { type DetectionParameters, detectionParameters, PARAMETER_RULES } from './parameters.js';
import { keepTargetClasses } from './target-classes.js';

/** A detection's class as the wire names it: its label and the label's parent category. */
function classOf(classIndex: number, categories: Pick<Detector, 'labels' | 'parents'>): Naming {
  return { name: categories.labels[classIndex] ?? `class_${classIndex}`, parent: categories.parents[classIndex] ?? GENERIC_PARENT };
}

/** Parameters as sent → parameters, for the model's class names. */
function parseParameters(sent: SentParameters, version: ApiVersion | undefined, scheduler: ModelScheduler<Detector>): DetectionParameters {
  return detectionParameters(sent, version, scheduler.model.labels);
}

/** Image bytes → the objects: the core pipeline, the target classes kept, then the crops and the visualization asked for. */
async function analyse(image: Buffer, parameters: DetectionParameters, call: AnalysisCall<Detector>): Promise<Findings> {
  const { scheduler, limits, signal, turn, context } = call;
  const fullResolution = parameters.outputCroppedImage || parameters.outputVisualizedImage;
  const found = await analyseImage({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold, fullResolution }, context.timings);
  try {
    const detections = keepTargetClasses(found.detections, scheduler.model.labels, parameters.targetClasses);
    const encodeStarted = performance.now();
    const named = detections.map((detection) => ({ detection, naming: classOf(detection.classIndex, scheduler.model) }));
    const response = await assembleFoundResponse(found, named, parameters);
    context.timings.encode = performance.now() - encodeStarted;
    return { width: found.width, height: found.height, found: response.found, visualizedImage: response.visualized_image };
  } finally {
    found.pixels?.release();
  }
}

export const objectDetection: Task<DetectionParameters, Detector> = {
  type: 'object-detection',
  lead: OBJECT_DETECTOR,
  summary: 'Detect objects in one image',
  requestSchema: 'object-detection-request',
  responseSchema: 'object-detection-response',
  parameters: PARAMETER_RULES,
  exampleFields: { ConfidenceThreshold: '0.5' },
  answerField: 'detected_objects',
  parseParameters,
  analyse,
};
