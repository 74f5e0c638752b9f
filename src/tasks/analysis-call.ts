import type { CallContext } from '../core/call-context.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { Service } from '../core/service.js';
import type { RoleModel } from '../models/role-models.js';
import type { ModelScheduler, ModelTurn } from '../scheduler/model-scheduler.js';

/** One analysis of one image, whichever door it came through; `Lead`: the interface of the task's lead model. */
export interface AnalysisCall<Lead extends RoleModel = RoleModel> {
  readonly service: Service;
  /** The model that answers the call, serving the task's lead step: the service's, or one a door named (DeepStack's custom route). */
  readonly scheduler: ModelScheduler<Lead>;
  readonly limits: AnalysisLimits;
  /** The call's deadline, the client leaving, or the stream ending. */
  readonly signal: AbortSignal;
  readonly context: CallContext;
  /** A model turn the caller already holds (a stream frame's); absent: the call waits for one. */
  readonly turn?: ModelTurn;
  /** The caller's labels of the image (a REST body's or a stream frame's `frame_id`, `source_id`), kept with what is remembered of it. */
  readonly labels?: ImageLabels;
}

export interface ImageLabels {
  readonly frameId?: string;
  readonly sourceId?: string;
}
