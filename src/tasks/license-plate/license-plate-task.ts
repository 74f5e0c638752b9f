import { DetectdError } from '../../core/errors.js';
import type { PlateReader } from '../../models/plates.js';
import type { CompanionModel, ModelKind } from '../../models/types.js';
import type { AnalysisCall } from '../analysis-call.js';
import type { Finding } from '../finding.js';
import { assembleFoundResponse } from '../found-response.js';
import { type ImageParameters, imageParameterRules, parseImageConfigurations } from '../image-parameters.js';
import type { ApiVersion, Findings, SentParameters, Task } from '../task.js';
import { LICENSE_PLATE_REQUEST, LICENSE_PLATE_RESPONSE } from './license-plate-schemas.js';
import { findPlates, readFoundPlates } from './read-plates.js';

/** The kinds of its two models: the detector that finds plates, and the reader (a companion model) that reads them. */
const PLATES = 'plates';
const PLATE_TEXT = 'plate-text';
/** Every plate goes out with this parent, as every face with `face`. */
const PLATE = 'plate';

/** The detector's floor by default: its authors' (../shared/models/plates/README.md); the reader's filter drops what is not a plate. */
const RULES = imageParameterRules({ one: 'plate', many: 'Plates' }, '0.25');

/** One plate on the wire: a Finding (its text as `name`), with what the reader says of it. */
interface PlateFinding extends Finding {
  read_confidence: number;
  country?: { name: string; confidence: number };
}

const round = (value: number) => Math.round(value * 1e5) / 1e5;

/** The plate reader loaded beside the detector; 503 `model_unavailable` when there is none. */
function readerOf(companions: (kind: ModelKind) => CompanionModel | undefined): PlateReader {
  const reader = companions(PLATE_TEXT);
  if (!reader) throw new DetectdError('model_unavailable', `No plate reader (a model of kind "${PLATE_TEXT}") is loaded: \`detectd models pull cct_xs_v2_global\` (docs/plates.md)`);
  return reader as PlateReader;
}

/**
 * The licence-plate task (`POST /api/v1/license-plate`, the JSON stream with the plates in
 * `detected_plates`, CodeProject.AI's ALPR): the service's plate detector finds the plates, in the
 * whole image and in its full-resolution windows (plate-windows.ts), the
 * companion plate reader reads every plate of the image in one batch (read-plates.ts). A plate's
 * `name` is its text, `parent` is `plate`, `confidence` the detector's, `read_confidence` the
 * reader's, `country` the reader's guess where its model gives one.
 */
export function licensePlateTask(companions: (kind: ModelKind) => CompanionModel | undefined): Task<ImageParameters> {
  return {
    type: 'license-plate',
    detects: PLATES,
    companion: PLATE_TEXT,
    summary: 'Find and read licence plates in one image',
    requestSchema: 'license-plate-request',
    responseSchema: 'license-plate-response',
    schemas: [LICENSE_PLATE_REQUEST, LICENSE_PLATE_RESPONSE],
    parameters: RULES,
    answerField: 'detected_plates',
    exampleFields: { ConfidenceThreshold: '0.25' },
    // A plate task shows nothing on dog.jpg.
    examplePhoto: { file: 'car.jpg', description: 'a photo of a car with its number plate in view' },
    parseParameters(sent: SentParameters, version: ApiVersion): ImageParameters {
      return parseImageConfigurations(RULES, sent.configurations, version);
    },
    async analyse(image: Buffer, parameters: ImageParameters, call: AnalysisCall): Promise<Findings> {
      const reader = readerOf(companions);
      const { scheduler, limits, signal, turn, context } = call;
      const analysis = await findPlates({ bytes: image, scheduler, limits, signal, turn, minScore: parameters.confidenceThreshold }, context.timings);
      try {
        const plates = await readFoundPlates(analysis, reader, context.timings);
        const detections = plates.map((plate) => plate.detection);
        const names = plates.map((plate) => ({ name: plate.text, parent: PLATE }));
        const { found, visualized_image: visualizedImage } = await assembleFoundResponse(analysis, detections, names, parameters);
        const read: PlateFinding[] = found.map((finding, index) => {
          const { reading } = plates[index];
          return { ...finding, read_confidence: round(reading.confidence), ...(reading.region && { country: { name: reading.region.name, confidence: round(reading.region.confidence) } }) };
        });
        return { width: analysis.width, height: analysis.height, found: read, tracked: detections, visualizedImage };
      } finally {
        analysis.pixels?.release();
      }
    },
    deepStack: { plates: true },
  };
}
