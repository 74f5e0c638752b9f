import type { ComposedModels } from '../../core/service-scheduler.js';
import { MODEL_KINDS } from '../../models/model-roles.js';
import type { ModelStep } from '../../models/model-step.js';
import type { Detector } from '../../models/types.js';
import type { PlateReader } from '../../models/plates.js';
import type { KnownPlates } from './known-plate-list.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { KnownPlateMatch } from './plate-match.js';
import { assembleFoundResponse, type NamedDetection, type Naming } from '../../tasks/found-response.js';
import { type ImageParameters, imageParameterRules, parseImageParameters } from '../../tasks/image-parameters.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../../tasks/task.js';
import { LICENSE_PLATE_REQUEST, LICENSE_PLATE_RESPONSE } from './license-plate-schemas.js';
import { findPlates, readFoundPlates } from './read-plates.js';

/** Its two models, in order: the service's detector finds the plates, the reader reads them. */
const PLATE_DETECTOR: ModelStep<Detector> = { role: 'detector', kind: MODEL_KINDS.plates };
const PLATE_READER: ModelStep<PlateReader> = { role: 'reader', kind: MODEL_KINDS.plateText, remedy: '`detectd models pull cct_xs_v2_global` (docs/plates.md)' };
/** Its service type. */
export const LICENSE_PLATE = 'license-plate';
/** Every plate goes out with this parent, as every face with `face`. */
const PLATE = 'plate';

/** The detector's floor by default: its authors' (../shared/models/plates/README.md); the reader's filter drops what is not a plate. */
const RULES = imageParameterRules({ one: 'plate', many: 'Plates' }, '0.25');

/** How a plate is named on the wire: its text as `name`, with what the reader says of it and the known plate it matches. */
interface PlateNaming extends Naming {
  read_confidence: number;
  country?: { name: string; confidence: number };
  known?: KnownPlateMatch;
}

const round = (value: number) => Math.round(value * 1e5) / 1e5;

/** The loaded plate reader, each read run by its scheduler in the call's lane; 503 `model_unavailable` when there is none. */
function readerOf(models: ComposedModels, call: AnalysisCall): PlateReader {
  const reader = models.model(PLATE_READER);
  return { ...reader, read: (image, regions) => models.run(PLATE_READER, call, (model) => model.read(image, regions)) };
}

/**
 * The licence-plate task (`POST /api/v1/license-plate`, the JSON stream with the plates in
 * `detected_plates`, CodeProject.AI's ALPR): the service's plate detector finds the plates, in the
 * whole image and in its full-resolution windows (plate-windows.ts), the plate reader (the task's
 * second model) reads every plate of the image in one batch (read-plates.ts). A plate's
 * `name` is its text, `parent` is `plate`, `confidence` the detector's, `read_confidence` the
 * reader's, `country` the reader's guess where its model gives one, `known` the service's known
 * plate it matches (read afresh for every image, so an edit on one replica holds on all).
 */
export function licensePlateTask(models: ComposedModels, knownPlates: KnownPlates): Task<ImageParameters, Detector> {
  return {
    type: LICENSE_PLATE,
    lead: PLATE_DETECTOR,
    composes: [PLATE_READER],
    summary: 'Find and read licence plates in one image',
    requestSchema: 'license-plate-request',
    responseSchema: 'license-plate-response',
    schemas: [LICENSE_PLATE_REQUEST, LICENSE_PLATE_RESPONSE],
    parameters: RULES,
    answerField: 'detected_plates',
    exampleFields: { ConfidenceThreshold: '0.25' },
    // A plate task shows nothing on dog.jpg.
    examplePhoto: { file: 'car.jpg', description: 'a photo of a car with its number plate in view' },
    parseParameters(sent: SentParameters, version: ApiVersion | undefined): ImageParameters {
      return parseImageParameters(RULES, sent, version);
    },
    async analyse(image: Buffer, parameters: ImageParameters, call: AnalysisCall<Detector>): Promise<Findings> {
      const reader = readerOf(models, call);
      const { scheduler, limits, signal, turn, context } = call;
      const analysis = await findPlates({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold }, context.timings);
      try {
        const plates = await readFoundPlates(analysis, reader, context.timings);
        const known = plates.length > 0 ? await knownPlates.matcher(call.service.id) : undefined;
        const named = plates.map(({ detection, text, reading }): NamedDetection<PlateNaming> => {
          const match = known?.(text);
          return {
            detection,
            naming: {
              name: text,
              parent: PLATE,
              read_confidence: round(reading.confidence),
              ...(reading.region && { country: { name: reading.region.name, confidence: round(reading.region.confidence) } }),
              ...(match && { known: match }),
            },
            // On a stream, a plate's track is the text its frames vote for, each as surely as it was read (streaming/track-votes.ts).
            vote: { answer: text, confidence: reading.confidence },
          };
        });
        const { found, visualized_image: visualizedImage } = await assembleFoundResponse(analysis, named, parameters);
        return { width: analysis.width, height: analysis.height, found, visualizedImage };
      } finally {
        analysis.pixels?.release();
      }
    },
  };
}
