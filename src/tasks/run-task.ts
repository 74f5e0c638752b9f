import { decodeRawData } from '../core/raw-data.js';
import type { AnalysisCall } from './analysis-call.js';
import type { Findings, Task } from './task.js';

/**
 * The one way every door runs a task on an image, once it has the task's parameters: the image
 * (bytes, or base64 text still to decode: a JSON body's `raw_data`, a JSON stream frame's) →
 * `analyse` → the findings, counted on the call.
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
