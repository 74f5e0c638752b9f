import type { ModelRegistry } from '../models/registry.js';
import type { ModelKind } from '../models/types.js';
import { ModelScheduler, type SchedulerSettings } from './model-scheduler.js';

/** One scheduler per loaded model, by model name. */
export class ModelSchedulers {
  readonly #byName: ReadonlyMap<string, ModelScheduler>;

  constructor(
    readonly registry: ModelRegistry,
    settings: SchedulerSettings,
  ) {
    this.#byName = new Map(registry.detectors.map((detector) => [detector.name, new ModelScheduler(detector, settings)]));
  }

  /**
   * The scheduler of the model that `name` names or aliases when it finds `kind` (null: that kind's
   * default); undefined when no such model of that kind is loaded.
   */
  findOfKind(name: string | null, kind: ModelKind): ModelScheduler | undefined {
    const detector = name === null ? this.registry.defaultOf(kind) : this.registry.find(name);
    return detector?.kind === kind ? this.#byName.get(detector.name) : undefined;
  }

  get all(): ModelScheduler[] {
    return [...this.#byName.values()];
  }
}
