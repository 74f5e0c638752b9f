import type { ModelKind, ModelStep } from '../models/model-roles.js';
import type { ModelRegistry } from '../models/registry.js';
import { type Detector, isDetector, type ServedModel } from '../models/types.js';
import { ModelScheduler, type SchedulerSettings } from './model-scheduler.js';

/** One scheduler per loaded model, of every role, by model name: the one way to run a model. */
export class ModelSchedulers {
  readonly #byName: ReadonlyMap<string, ModelScheduler<ServedModel>>;

  constructor(
    readonly registry: ModelRegistry,
    settings: SchedulerSettings,
  ) {
    this.#byName = new Map(registry.models.map((model) => [model.name, new ModelScheduler(model, settings)]));
  }

  /**
   * The scheduler of the detector that `name` names or aliases when it finds `kind` (null: that kind's
   * default); undefined when no such detector of that kind is loaded.
   */
  findOfKind(name: string | null, kind: ModelKind): ModelScheduler | undefined {
    const model = name === null ? this.registry.defaultOf(kind) : this.registry.find(name);
    return model && isDetector(model) && model.kind === kind ? (this.#byName.get(model.name) as ModelScheduler<Detector>) : undefined;
  }

  /** The names and aliases of the loaded detectors of `kind`: what a service of a task finding that kind may name. */
  namesOfKind(kind: ModelKind): string[] {
    return this.registry.ofKind(kind).flatMap((detector) => [detector.name, ...detector.aliases]);
  }

  /** The scheduler of the model serving a task's step (the first loaded of its role and kind); undefined when none is loaded. */
  forStep(step: ModelStep): ModelScheduler<ServedModel> | undefined {
    const model = this.registry.forStep(step);
    return model && this.#byName.get(model.name);
  }

  get all(): ModelScheduler<ServedModel>[] {
    return [...this.#byName.values()];
  }
}
