import { analyseImage } from '../../../src/core/pipeline.js';
import type { ComposedModels } from '../../../src/core/service-scheduler.js';
import { MODEL_KINDS } from '../../../src/models/model-roles.js';
import type { ModelStep } from '../../../src/models/model-step.js';
import type { Detector } from '../../../src/models/types.js';
import type { PlateReader } from '../../../src/models/plates.js';
import type { AnalysisCall } from '../../../src/tasks/analysis-call.js';
import type { Finding } from '../../../src/tasks/finding.js';
import { type ImageParameters, imageParameterRules, parseImageParameters } from '../../../src/tasks/image-parameters.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../../../src/tasks/task.js';
import { PLATE_SUMMARY_REQUEST, PLATE_SUMMARY_RESPONSE } from './plate-summary-schemas.js';

/** The task's service type, and its verb on doors that name calls by verb. */
export const PLATE_SUMMARY = 'plate-summary';
export const PLATE_SUMMARY_VERB = 'summarise-plate';
/** What the image says when no plate is read in it. */
export const NO_PLATE = 'no plate';

/** Its two models, of two roles, in order: the service's detector finds the plates, a reader reads them. */
const DETECTOR: ModelStep<Detector> = { role: 'detector', kind: MODEL_KINDS.plates };
const READER: ModelStep<PlateReader> = { role: 'reader', kind: MODEL_KINDS.plateText, remedy: 'put a fast-plate-ocr reader in the models folder' };

/** Its only parameter: the detector's floor. */
const RULES = { ConfidenceThreshold: imageParameterRules({ one: 'plate', many: 'Plates' }, '0.25').ConfidenceThreshold };

/** One finding about the whole image: the text of the plate read most surely (or `no plate`), how sure, and how many plates were found. */
function wholeImageFinding(texts: readonly { text: string; confidence: number }[], plates: number, bestDetectorScore: number): Finding {
  const [best] = [...texts].sort((one, other) => other.confidence - one.confidence);
  const round = (value: number) => Math.round(value * 1e5) / 1e5;
  return best
    ? { name: best.text, parent: 'image', confidence: round(best.confidence), text: best.text, attributes: { plates } }
    : { name: NO_PLATE, parent: 'image', confidence: round(1 - bestDetectorScore), text: '', attributes: { plates } };
}

/**
 * A test task of a new shape (docs/development.md "Architecture"): its answer is one finding for
 * the whole image, with no box; it composes two models of different roles (a plate detector, then
 * a plate reader, each through its scheduler); and it offers a verb of its own (`summarise-plate`). It
 * is one folder, registered by one line in a test's task table.
 */
export function plateSummaryTask(models: ComposedModels): Task<ImageParameters, Detector> {
  return {
    type: PLATE_SUMMARY,
    lead: DETECTOR,
    composes: [READER],
    summary: 'Read what the plate in one image says',
    requestSchema: 'plate-summary-request',
    responseSchema: 'plate-summary-response',
    schemas: [PLATE_SUMMARY_REQUEST, PLATE_SUMMARY_RESPONSE],
    parameters: RULES,
    answerField: 'detected_plate_summary',
    exampleFields: { ConfidenceThreshold: '0.25' },
    examplePhoto: { file: 'car.jpg', description: 'a photo of a car with its number plate in view' },
    parseParameters: (sent: SentParameters, version: ApiVersion | undefined) => parseImageParameters(RULES, sent, version),
    async analyse(image: Buffer, parameters: ImageParameters, call: AnalysisCall<Detector>): Promise<Findings> {
      const { scheduler, limits, signal, turn, context } = call;
      const analysis = await analyseImage({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold, fullResolution: true }, context.timings);
      try {
        const boxes = analysis.detections.map((detection) => detection.box);
        const { readings } = await models.run(READER, call, (reader) => reader.read(analysis.pixels!, boxes));
        const texts = readings.map((reading) => ({ text: reading.text.toUpperCase().replace(/[^A-Z0-9]/g, ''), confidence: reading.confidence })).filter((read) => read.text.length >= 3);
        const found = [wholeImageFinding(texts, boxes.length, analysis.detections[0]?.score ?? 0)];
        // Nothing to follow from frame to frame: the finding is the image, with no track.
        return { width: analysis.width, height: analysis.height, found: found.map((finding) => ({ finding })) };
      } finally {
        analysis.pixels?.release();
      }
    },
    abilities: { verb: { name: PLATE_SUMMARY_VERB, summary: 'What the plate in the image says' } },
  };
}
