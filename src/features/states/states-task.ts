import { DetectdError } from '../../core/errors.js';
import type { Embedder } from '../../models/embedder.js';
import { MODEL_KINDS } from '../../models/model-roles.js';
import type { ModelStep } from '../../models/model-step.js';
import type { Detection } from '../../models/types.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { Finding } from '../../tasks/finding.js';
import type { Findings, SentParameters, Task } from '../../tasks/task.js';
import { decodeFrame, embedRegions } from './frame-regions.js';
import { judgeState, type JudgeSettings, type StateJudgement } from './nearest-state.js';
import type { StateStore, TaughtRegion } from './state-store.js';
import { STATES_SCHEMAS } from './states-schemas.js';

/** Its service type. */
export const STATES = 'region-states';

/** Its lead: an image embedder (the embedded MobileNetV2 unless the service names another). */
export const STATE_EMBEDDER: ModelStep<Embedder> = { role: 'embedder', kind: MODEL_KINDS.imageEmbeddings };

/** The 3 nearest examples per state; unsure when the best leads the next by less than 0.02 (set on the TUNE split, docs/states.md). */
export const JUDGE: JudgeSettings = { neighbours: 3, margin: 0.02 };

/** A region's state when no taught state is clearly nearest. */
export const UNSURE = 'unsure';

/** One region on the wire: a Finding (the region's name as `name`) with its state. */
export interface StateFinding extends Finding {
  state: string;
}

/** The lead mapped onto 0–1: 0.5 at a tie, 0.7 at the margin, 1 from 2.5 times it; 0 when there was nothing to tell apart (fewer than two states taught). */
function confidenceOf(judgement: StateJudgement): number {
  if (!judgement.compared) return 0;
  return Math.round(Math.min(1, 0.5 + (judgement.lead * 0.2) / JUDGE.margin) * 1e4) / 1e4;
}

function findingOf(region: TaughtRegion, vector: Float32Array): StateFinding {
  const judgement = judgeState(vector, region.states, JUDGE);
  return { name: region.name, parent: 'region', state: judgement.state ?? UNSURE, confidence: confidenceOf(judgement), bounding_box: { ...region.box } };
}

/** The task takes no parameters: any configuration sent is refused. */
function parseParameters(sent: SentParameters): Record<string, never> {
  if ((sent.configurations?.length ?? 0) > 0) throw new DetectdError('invalid_configuration', 'the states task takes no configuration parameters');
  return {};
}

/**
 * The states task (`POST /api/v1/region-states`, DeepStack's custom route with the source's name): every
 * region of the frame's source (its `source_id`) embedded in one batch by the service's embedder,
 * each answered by its nearest taught examples (nearest-state.ts), `unsure` when no state leads.
 * A region's `name` is its own, `parent` is `region`, `state` the answer.
 */
export function statesTask(store: Pick<StateStore, 'taught'>): Task<Record<string, never>, Embedder> {
  return {
    type: STATES,
    lead: STATE_EMBEDDER,
    summary: 'Judge the taught state of each region of a camera\'s frame',
    requestSchema: 'states-request',
    responseSchema: 'states-response',
    schemas: STATES_SCHEMAS,
    parameters: {},
    answerField: 'detected_states',
    exampleFields: { source_id: 'parking' },
    parseParameters,
    async analyse(image: Buffer, _parameters, call: AnalysisCall<Embedder>): Promise<Findings> {
      const regions = await store.taught(call.service.id, call.labels?.sourceId ?? '');
      const frame = await decodeFrame(image, call.limits);
      try {
        const vectors = regions.length === 0 ? [] : await embedRegions(frame, regions, call);
        const found = regions.map((region, n) => findingOf(region, vectors[n])).sort((a, b) => b.confidence - a.confidence);
        const tracked: Detection[] = found.map((finding) => ({ classIndex: 0, score: finding.confidence, box: finding.bounding_box! }));
        return { width: frame.width, height: frame.height, found, tracked };
      } finally {
        frame.release();
      }
    },
  };
}
