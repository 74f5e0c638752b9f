import type { Detector, DetectorKind } from './types.js';

/**
 * The detectors this process serves, by name. The first configured detector of a kind is that
 * kind's default: `defaultModel` for objects, `defaultOf('faces')` for faces.
 */
export class ModelRegistry {
  readonly detectors: readonly Detector[];
  readonly defaultModel: Detector;

  constructor(detectors: readonly Detector[]) {
    if (new Set(detectors.map((detector) => detector.name)).size !== detectors.length) throw new Error('two configured models share a name');
    this.detectors = detectors;
    const defaultModel = this.defaultOf('objects');
    if (!defaultModel) throw new Error('no object detector loaded');
    this.defaultModel = defaultModel;
  }

  get names(): string[] {
    return this.detectors.map((detector) => detector.name);
  }

  /** The detectors of one kind, in configuration order: what a task of that kind may be given. */
  ofKind(kind: DetectorKind): Detector[] {
    return this.detectors.filter((detector) => detector.kind === kind);
  }

  /** The first detector of a kind; undefined when none of that kind is loaded. */
  defaultOf(kind: DetectorKind): Detector | undefined {
    return this.detectors.find((detector) => detector.kind === kind);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.detectors.map((detector) => detector.dispose()));
  }
}
