import type { ModelDescription } from '../../model-description.js';
import { ModelRefused } from '../../model-refused.js';
import { type FileDetector, type InferenceSettings, modelNameOf } from '../../model-repository.js';
import type { PostprocessOptions } from '../../types.js';
import { EXECUTION_DEVICE } from './onnx-session-options.js';
import type { OnnxSessionPool } from './onnx-session-pool.js';

/** The fields of a FileDetector that every ONNX Runtime model has alike, whatever it detects. */
type ServedFields = Pick<FileDetector, 'name' | 'runtime' | 'device' | 'aliases' | 'capacity' | 'dispose' | 'settings'>;

/**
 * What an ONNX Runtime model served from a session pool is, besides what it detects: its name and
 * aliases, its capacity — `concurrency` runs, one more image held so that the next is decoded
 * while they run (who goes when is the scheduler's decision) — and how it is let go.
 */
export function servedOnnxModel(modelPath: string, description: ModelDescription, settings: InferenceSettings, pool: OnnxSessionPool): ServedFields {
  return {
    name: modelNameOf(modelPath),
    runtime: 'onnxruntime-node',
    device: EXECUTION_DEVICE,
    aliases: description.aliases ?? [],
    capacity: { inputs: settings.concurrency + 1, runs: settings.concurrency },
    dispose: () => pool.close(),
    settings,
  };
}

/** The most detections one image may have: the caller's limit, lowered by the model's configuration file. */
export function detectionLimit(options: PostprocessOptions, description: ModelDescription): number {
  return Math.min(options.maxDetections, description.maxDetections ?? options.maxDetections);
}

/**
 * Runs `load`, which opens the model's sessions and hands them to `keep`: any failure closes what was
 * opened and refuses the model with the reason (ours, or ONNX Runtime's own words: a corrupt file, an
 * unsupported operator).
 */
export async function loadOrRefuse<T>(modelPath: string, load: (keep: (pool: OnnxSessionPool) => OnnxSessionPool) => Promise<T>): Promise<T> {
  let pool: OnnxSessionPool | undefined;
  try {
    return await load((opened) => (pool = opened));
  } catch (error) {
    await pool?.close();
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}
