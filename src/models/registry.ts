import { MODEL_KINDS } from './model-roles.js';
import { type ModelStep, serves } from './model-step.js';
import type { RoleModel } from './role-models.js';
import type { Detector, ServedModel } from './types.js';

/** The step of the default object detector: every server serves one. */
export const OBJECT_DETECTOR: ModelStep<Detector> = { role: 'detector', kind: MODEL_KINDS.objects };

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
 * object detector; a service that names no model is answered by the default of its task's lead
 * step, and a task's later steps (a plate reader, a face describer) by the default of theirs.
 */
export class ModelRegistry {
  readonly models: readonly RoleModel[];
  readonly defaultModel: Detector;
  readonly #byName: ReadonlyMap<string, RoleModel>;
  readonly #embedded: ReadonlySet<ServedModel>;

  /** `embedded`: those of `models` served because no model file of their role and kind is configured. */
  constructor(models: readonly RoleModel[], reserved: ReservedModelNames = new Map(), embedded: ReadonlySet<ServedModel> = new Set()) {
    this.#byName = modelsByName(models, reserved);
    this.models = models;
    this.#embedded = embedded;
    const defaultModel = this.defaultOf(OBJECT_DETECTOR);
    if (!defaultModel) throw new Error('no object detector loaded');
    this.defaultModel = defaultModel;
  }

  /** The models serving `step` (its role and kind), in configuration order: what a service of a task led by that step may name. */
  ofStep<Model extends RoleModel>(step: ModelStep<Model>): Model[] {
    return this.models.filter((model) => serves(model, step));
  }

  /** The first model serving `step` (its role and kind): the step's default; undefined when none is loaded. */
  defaultOf<Model extends RoleModel>(step: ModelStep<Model>): Model | undefined {
    return this.ofStep(step)[0];
  }

  /** Whether `model` is the default of its role and kind: the model that answers the services of that step which name no model. */
  isDefault(model: RoleModel): boolean {
    return this.defaultOf({ role: model.role, kind: model.kind }) === model;
  }

  /** Whether `model` is an embedded model, served because no model file of its role and kind is configured. */
  isEmbedded(model: ServedModel): boolean {
    return this.#embedded.has(model);
  }

  /** The model that `name` (a model name or an alias) names. */
  find(name: string): RoleModel | undefined {
    return this.#byName.get(name);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.models.map((model) => model.dispose()));
  }
}
