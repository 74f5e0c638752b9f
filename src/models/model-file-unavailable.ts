import { modelNameOf } from './model-repository.js';

/**
 * A model whose inference worker stopped and cannot be started again, because its file is no
 * longer the one the server loaded: deleted, unreadable, or replaced. Its calls are answered 503
 * `model_unavailable` until the file is back; the worker is started again every `retrySeconds`.
 */
export class ModelFileUnavailable extends Error {
  constructor(
    modelPath: string,
    /** What became of the file: `is not there (deleted or moved)`, … */
    reason: string,
    readonly retrySeconds: number,
  ) {
    super(`model ${modelNameOf(modelPath)} cannot run: its inference worker stopped, and its file ${modelPath} ${reason}`);
  }
}
