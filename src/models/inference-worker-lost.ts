/**
 * A run's inference worker thread stopped (crashed, ran out of memory, was terminated) while the
 * run was in it. The worker is restarted with its sessions at once; the run itself is not retried,
 * so its caller is told (503 `model_unavailable`) and the next run goes to the new worker.
 */
export class InferenceWorkerLost extends Error {
  constructor(cause: Error) {
    super(`the model's inference worker stopped during this run (${cause.message}); it has been restarted`, { cause });
  }
}
