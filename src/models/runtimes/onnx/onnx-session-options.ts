import type * as ort from 'onnxruntime-node';

/** The execution providers every session asks for: the CPU's (no accelerator provider is configured). */
export const EXECUTION_PROVIDERS = ['cpu'] as const;

/** The device the sessions run on, as CodeProject.AI's `inferenceDevice` names it: the first provider's. */
export const EXECUTION_DEVICE = EXECUTION_PROVIDERS[0].toUpperCase();

/**
 * ORT session options of every detector session; the benchmark's raw baseline uses them too.
 * `spinning` false makes idle intra-op threads sleep rather than spin: right for a session that
 * runs beside others on the same cores. The planned memory pattern speeds up multi-threaded runs
 * but not single-threaded ones, where it would only hold more memory per session
 * (docs/performance.md). ORT's own log says errors only: its warnings
 * are about how a file was exported (UltraFace's weights listed as graph inputs: one line per
 * weight, hundreds at start-up), nothing an operator can act on; a model it cannot run still
 * fails with ORT's words.
 */
export function sessionOptions(threads: number, spinning = true): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [...EXECUTION_PROVIDERS],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    enableMemPattern: threads > 1,
    extra: { session: { intra_op: { allow_spinning: spinning ? '1' : '0' } } },
  };
}
