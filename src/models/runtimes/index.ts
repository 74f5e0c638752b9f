import type { Runtime } from '../model-repository.js';
import { onnxRuntime } from './onnx/onnx-detector.js';

/**
 * Every runtime that serves model files; one line per runtime module. The repository takes the
 * files whose extensions they declare, and load-models.ts loads each with its own runtime.
 */
export const RUNTIMES = [onnxRuntime] as const satisfies readonly Runtime[];
