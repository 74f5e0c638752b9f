import { decodeRawData } from '../core/raw-data.js';
import type { AnalysisCall } from './analysis-call.js';
import type { Findings, Task } from './task.js';

/**
 * How every door runs a task's `analyse` on an image, once it has the task's parameters: the image
 * (bytes, or base64 text still to decode: a JSON body's `raw_data`, a JSON stream frame's) →
 * `analyse` → the findings, counted on the call. (A door's own verbs, such as DeepStack's face
 * registration, go through what the task offers for them; every model run, either way, goes
 * through the model's scheduler.)
 */
export async function runTask<Parameters>(task: Task<Parameters>, image: Buffer | string, parameters: Parameters, call: AnalysisCall): Promise<Findings> {
  let bytes: Buffer;
  if (typeof image === 'string') {
    const started = performance.now();
    bytes = decodeRawData(image);
    call.context.timings.base64 = performance.now() - started;
  } else {
    bytes = image;
  }
  const findings = await task.analyse(bytes, parameters, call);
  call.context.objects = findings.found.length;
  return findings;
}
