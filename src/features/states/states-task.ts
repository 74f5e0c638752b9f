import path from 'node:path';
import type { Embedder } from '../../models/embedder.js';
import { MODEL_KINDS } from '../../models/model-roles.js';
import type { ModelStep } from '../../models/model-step.js';
import type { Detection } from '../../models/types.js';
import { packageRoot } from '../../package-root.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import { assembleFoundResponse, type NamedDetection, type Naming } from '../../tasks/found-response.js';
import { type ImageParameterRule, type ImageParameters, imageParameterRules, parseImageParameters } from '../../tasks/image-parameters.js';
import type { Findings, Task } from '../../tasks/task.js';
import { decodeFrame, embedRegions } from './frame-regions.js';
import { judgeState, type JudgeSettings, type StateJudgement } from './nearest-state.js';
import { embedderIdentity } from './state-embedder.js';
import type { StateStore, TaughtRegion } from './state-store.js';
import { STATES_SCHEMAS } from './states-schemas.js';

/** Its service type. */
export const STATES = 'region-states';

/**
 * Its lead: an image embedder — the one the service names, else the first configured, else the
 * embedded MobileNetV2 the feature brings (int8, its pooled features as `embedding`, sampled at 64²
 * by its configuration beside it: assets/models/README.md, docs/states.md).
 */
export const STATE_EMBEDDER: ModelStep<Embedder> = {
  role: 'embedder',
  kind: MODEL_KINDS.imageEmbeddings,
  builtIn: path.join(packageRoot(), 'assets', 'models', 'mobilenetv2-12-int8-emb.onnx'),
};

/** The 3 nearest examples per state; unsure when the best leads the next by less than 0.02 (set on the TUNE split, docs/states.md). */
export const JUDGE: JudgeSettings = { neighbours: 3, margin: 0.02 };

/** A region's state when no taught state is clearly nearest. */
export const UNSURE = 'unsure';

/** Every region goes out with this parent. */
const REGION = 'region';

/** How a region is named on the wire: its own name as `name`, with its state, and the states it must be taught again. */
interface StateNaming extends Naming {
  state: string;
  teach_again?: string[];
}

/** The image tasks' three parameters, and how many frames in a row must read a region's new state on a stream. */
export interface StatesParameters extends ImageParameters {
  framesToAgree: number;
}

/** The lead mapped onto 0–1: 0.5 at a tie, 0.7 at the margin, 1 from 2.5 times it; 0 when there was nothing to tell apart (fewer than two states taught). */
function confidenceOf(judgement: StateJudgement): number {
  if (!judgement.compared) return 0;
  return Math.round(Math.min(1, 0.5 + (judgement.lead * 0.2) / JUDGE.margin) * 1e4) / 1e4;
}

/** The most frames a stream may be asked to wait for: a second or so of a camera's frames. */
const MOST_FRAMES_TO_AGREE = 30;

const parseFramesToAgree = (value: string): number | undefined => {
  const trimmed = value.trim();
  const frames = Number(trimmed);
  return /^\d+$/.test(trimmed) && frames >= 1 && frames <= MOST_FRAMES_TO_AGREE ? frames : undefined;
};

/** The image tasks' three parameters, every region by default (an unsure one too); and FramesToAgree, 3 by default: one odd frame, or two, change nothing. */
const RULES: Readonly<Record<string, ImageParameterRule<StatesParameters>>> = {
  ...imageParameterRules({ one: 'region', many: 'Regions' }, '0'),
  FramesToAgree: {
    key: 'framesToAgree',
    versions: ['v1', 'legacy'],
    defaultValue: '3',
    allowed: `a whole number from 1 to ${MOST_FRAMES_TO_AGREE}, e.g. "3"`,
    description: 'On a stream: how many frames in a row must read a region\'s new state before it settles (a `state_changed` event); unsure frames neither count nor break the run. One image alone ignores it.',
    parse: parseFramesToAgree,
  },
};

/** Each region's state by the examples of the embedder that answers now, as a detection (its box, the confidence as score) beside it; the states taught only by another embedder, to teach again. */
function judged(region: TaughtRegion, vector: Float32Array, embedder: string): { state: string; detection: Detection; teachAgain: string[] } {
  const current = region.states.filter((examples) => examples.embedder === embedder);
  const teachAgain = [...new Set(region.states.filter((examples) => !current.some((each) => each.state === examples.state)).map((examples) => examples.state))];
  const judgement = judgeState(vector, current, JUDGE);
  return { state: judgement.state ?? UNSURE, detection: { classIndex: 0, score: confidenceOf(judgement), box: { ...region.box } }, teachAgain };
}

/**
 * The states task (`POST /api/v1/region-states`, DeepStack's custom route with the source's name): every
 * region of the frame's source (its `source_id`) embedded in one batch by the service's embedder,
 * each answered by its nearest taught examples (nearest-state.ts), `unsure` when no state leads.
 * A region's `name` is its own, `parent` is `region`, `state` the answer.
 */
export function statesTask(store: Pick<StateStore, 'taught'>): Task<StatesParameters, Embedder> {
  return {
    type: STATES,
    lead: STATE_EMBEDDER,
    summary: 'Judge the taught state of each region of a camera\'s frame',
    requestSchema: 'states-request',
    responseSchema: 'states-response',
    schemas: STATES_SCHEMAS,
    parameters: RULES,
    answerField: 'detected_states',
    exampleFields: { source_id: 'parking' },
    parseParameters: (sent, version) => parseImageParameters(RULES, sent, version),
    async analyse(image: Buffer, parameters, call: AnalysisCall<Embedder>): Promise<Findings> {
      const regions = await store.taught(call.service.id, call.labels?.sourceId ?? '');
      const embedder = embedderIdentity(call.scheduler.model);
      const frame = await decodeFrame(image, call.limits);
      try {
        const vectors = regions.length === 0 ? [] : await embedRegions(frame, regions, call);
        const named = regions
          .map((region, n) => ({ region, ...judged(region, vectors[n], embedder) }))
          .filter(({ detection }) => detection.score >= parameters.confidenceThreshold)
          .sort((a, b) => b.detection.score - a.detection.score)
          .map(({ region, state, detection, teachAgain }): NamedDetection<StateNaming> => ({
            detection,
            naming: { name: region.name, parent: REGION, state, ...(teachAgain.length > 0 && { teach_again: teachAgain }) },
            // On a stream (per source) a region's state settles once FramesToAgree frames in a row read it; an unsure frame reads nothing.
            reading: { subject: region.name, state: state === UNSURE ? undefined : state, confidence: detection.score, framesToAgree: parameters.framesToAgree },
          }));
        const { found, visualized_image: visualizedImage } = await assembleFoundResponse({ width: frame.width, height: frame.height, pixels: frame }, named, parameters);
        return { width: frame.width, height: frame.height, found, visualizedImage };
      } finally {
        frame.release();
      }
    },
  };
}
