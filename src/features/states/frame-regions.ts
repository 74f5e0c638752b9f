import type { AnalysisLimits } from '../../core/pipeline.js';
import { DetectdError } from '../../core/errors.js';
import { schedulingFailure } from '../../core/pipeline.js';
import type { Embedder } from '../../models/embedder.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import { type DecodedImage, decodeImage, ImageDecodeError } from '../../vision/decode.js';
import type { DrawnRegion } from './region-shape.js';

/** The frame at full resolution (regions are in its pixels); the decoder's refusals as the caller's 400s. */
export async function decodeFrame(bytes: Buffer, limits: AnalysisLimits): Promise<DecodedImage> {
  return decodeImage(bytes, { maxPixels: limits.maxPixels }).catch((error: unknown) => {
    throw error instanceof ImageDecodeError ? new DetectdError(error.failure, error.message) : error;
  });
}

/** Every region of the frame embedded in one batch by the call's model, through its scheduler; the stage timings noted on the call. */
export async function embedRegions(frame: DecodedImage, regions: readonly DrawnRegion[], call: AnalysisCall<Embedder>): Promise<Float32Array[]> {
  const { scheduler, signal, limits, context } = call;
  try {
    const { vectors, timings } = await scheduler.run('request', signal, () =>
      scheduler.model.embed(
        frame,
        regions.map((region) => region.box),
        regions.map((region) => region.polygon),
      ),
    );
    Object.assign(context.timings, timings);
    return vectors;
  } catch (error) {
    throw schedulingFailure(error, limits);
  }
}
