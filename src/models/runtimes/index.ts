import type { FileRuntime } from '../model-repository.js';
import { onnxRuntime } from './onnx-detector.js';

/**
 * Every runtime that serves model files; one line per runtime module. The repository takes the
 * files whose extensions they declare, and load-models.ts loads each with its own runtime.
 */
export const FILE_RUNTIMES = [onnxRuntime] as const satisfies readonly FileRuntime[];
