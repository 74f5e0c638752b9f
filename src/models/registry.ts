import { MODEL_KINDS, type ModelKind, type ModelStep } from './model-roles.js';
import { type Detector, isDetector, type ServedModel } from './types.js';

/** Names no model may have or alias, each with why (e.g. a front door's own path segment). */
export type ReservedModelNames = ReadonlyMap<string, string>;

/**
 * Every name and alias of `models` → its model. Throws when two models share a name, an
 * alias is another model's name (or another alias) — such a name would reach one of them by
 * chance — or a name or alias is reserved.
 */
export function modelsByName<Model extends Pick<ServedModel, 'name' | 'aliases'>>(models: readonly Model[], reserved: ReservedModelNames): Map<string, Model> {
  for (const model of models) {
    const taken = [model.name, ...model.aliases].find((name) => reserved.has(name));
    if (taken !== undefined) throw new Error(`model "${model.name}" is named or aliased "${taken}", which is ${reserved.get(taken)}; rename it`);
  }
  const byName = new Map<string, Model>();
  for (const model of models) {
    if (byName.has(model.name)) throw new Error(`two configured models are named "${model.name}"`);
    byName.set(model.name, model);
  }
  for (const model of models) {
    for (const alias of model.aliases) {
      const other = byName.get(alias);
      if (other === model) throw new Error(`model "${model.name}" names "${alias}" twice (its own name or twice as an alias)`);
      if (other) {
        const what = other.name === alias ? `the name of model "${other.name}"` : `an alias of model "${other.name}" too`;
        throw new Error(`model "${model.name}" has the alias "${alias}", which is ${what}; change one of their configuration files`);
      }
      byName.set(alias, model);
    }
  }
  return byName;
}

/**
 * The models this process serves, of every role, by name or alias (modelsByName's rules). The
 * first loaded model of a role and kind is that step's default: `defaultModel` is the first
 * object detector, and a task's later steps (a plate reader, a face describer) take the first
 * model of theirs (`forStep`).
 */
export class ModelRegistry {
  readonly models: readonly ServedModel[];
  /** The models of role `detector`: what a service names. */
  readonly detectors: readonly Detector[];
  readonly defaultModel: Detector;
  readonly #byName: ReadonlyMap<string, ServedModel>;
  readonly #embedded: ReadonlySet<ServedModel>;

  /** `embedded`: those of `models` served because no model file of their role and kind is configured. */
  constructor(models: readonly ServedModel[], reserved: ReservedModelNames = new Map(), embedded: ReadonlySet<ServedModel> = new Set()) {
    this.#byName = modelsByName(models, reserved);
    this.models = models;
    this.detectors = models.filter(isDetector);
    this.#embedded = embedded;
    const defaultModel = this.defaultOf(MODEL_KINDS.objects);
    if (!defaultModel) throw new Error('no object detector loaded');
    this.defaultModel = defaultModel;
  }

  get names(): string[] {
    return this.detectors.map((detector) => detector.name);
  }

  /** The detectors of one kind, in configuration order: what a service of a task finding that kind may name. */
  ofKind(kind: ModelKind): Detector[] {
    return this.detectors.filter((detector) => detector.kind === kind);
  }

  /** The first detector of a kind; undefined when none of that kind is loaded. */
  defaultOf(kind: ModelKind): Detector | undefined {
    return this.detectors.find((detector) => detector.kind === kind);
  }

  /** Whether `model` is the default of its kind: the detector that answers the services of that kind which name no model. */
  isDefault(model: ServedModel): boolean {
    return isDetector(model) && this.defaultOf(model.kind) === model;
  }

  /** The first model of a step's role and kind; undefined when none is loaded. */
  forStep(step: ModelStep): ServedModel | undefined {
    return this.models.find((model) => model.role === step.role && model.kind === step.kind);
  }

  /** Whether `model` is an embedded model, served because no model file of its role and kind is configured. */
  isEmbedded(model: ServedModel): boolean {
    return this.#embedded.has(model);
  }

  /** The model that `name` (a model name or an alias) names. */
  find(name: string): ServedModel | undefined {
    return this.#byName.get(name);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.models.map((model) => model.dispose()));
  }
}
