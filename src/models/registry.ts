import type { CompanionModel, Detector, ModelKind } from './types.js';

/** Names no model may have or alias, each with why (e.g. a front door's own path segment). */
export type ReservedModelNames = ReadonlyMap<string, string>;

/**
 * Every name and alias of `detectors` → its detector. Throws when two detectors share a name, an
 * alias is another model's name (or another alias) — such a name would reach one of them by
 * chance — or a name or alias is reserved.
 */
export function modelsByName(detectors: readonly Detector[], reserved: ReservedModelNames): Map<string, Detector> {
  for (const detector of detectors) {
    const taken = [detector.name, ...detector.aliases].find((name) => reserved.has(name));
    if (taken !== undefined) throw new Error(`model "${detector.name}" is named or aliased "${taken}", which is ${reserved.get(taken)}; rename it`);
  }
  const byName = new Map<string, Detector>();
  for (const detector of detectors) {
    if (byName.has(detector.name)) throw new Error(`two configured models are named "${detector.name}"`);
    byName.set(detector.name, detector);
  }
  for (const detector of detectors) {
    for (const alias of detector.aliases) {
      const other = byName.get(alias);
      if (other === detector) throw new Error(`model "${detector.name}" names "${alias}" twice (its own name or twice as an alias)`);
      if (other) {
        const what = other.name === alias ? `the name of model "${other.name}"` : `an alias of model "${other.name}" too`;
        throw new Error(`model "${detector.name}" has the alias "${alias}", which is ${what}; change one of their configuration files`);
      }
      byName.set(alias, detector);
    }
  }
  return byName;
}

/**
 * The detectors this process serves, by name or alias (modelsByName's rules). The first configured
 * detector of a kind is that kind's default: `defaultModel` for objects, `defaultOf('faces')` for faces.
 */
export class ModelRegistry {
  readonly detectors: readonly Detector[];
  readonly defaultModel: Detector;
  readonly #byName: ReadonlyMap<string, Detector>;
  readonly #embedded: ReadonlySet<Detector>;

  /** `embedded`: those of `detectors` served because no model file of their kind is configured; `companions`: the models tasks run beside them (CompanionModel). */
  constructor(
    detectors: readonly Detector[],
    reserved: ReservedModelNames = new Map(),
    embedded: ReadonlySet<Detector> = new Set(),
    readonly companions: readonly CompanionModel[] = [],
  ) {
    this.#byName = modelsByName(detectors, reserved);
    this.detectors = detectors;
    this.#embedded = embedded;
    const defaultModel = this.defaultOf('objects');
    if (!defaultModel) throw new Error('no object detector loaded');
    this.defaultModel = defaultModel;
  }

  get names(): string[] {
    return this.detectors.map((detector) => detector.name);
  }

  /** The detectors of one kind, in configuration order: what a task of that kind may be given. */
  ofKind(kind: ModelKind): Detector[] {
    return this.detectors.filter((detector) => detector.kind === kind);
  }

  /** The first detector of a kind; undefined when none of that kind is loaded. */
  defaultOf(kind: ModelKind): Detector | undefined {
    return this.detectors.find((detector) => detector.kind === kind);
  }

  /** The first companion model of a kind; undefined when none of that kind is loaded. */
  companionOf(kind: ModelKind): CompanionModel | undefined {
    return this.companions.find((companion) => companion.kind === kind);
  }

  /** Whether `detector` is an embedded model, served because no model file of its kind is configured. */
  isEmbedded(detector: Detector): boolean {
    return this.#embedded.has(detector);
  }

  /** The detector that `name` (a model name or an alias) names. */
  find(name: string): Detector | undefined {
    return this.#byName.get(name);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.detectors, ...this.companions].map((model) => model.dispose()));
  }
}
