import type { Detector } from './types.js';

/** The detectors this process serves, by name; the first configured one is the default. */
export class ModelRegistry {
  readonly detectors: readonly Detector[];
  readonly defaultModel: Detector;

  constructor(detectors: readonly Detector[]) {
    if (detectors.length === 0) throw new Error('no detector loaded');
    if (new Set(detectors.map((detector) => detector.name)).size !== detectors.length) throw new Error('two configured models share a name');
    this.detectors = detectors;
    this.defaultModel = detectors[0];
  }

  get names(): string[] {
    return this.detectors.map((detector) => detector.name);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.detectors.map((detector) => detector.dispose()));
  }
}
