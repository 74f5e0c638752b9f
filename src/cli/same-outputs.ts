import fs from 'node:fs/promises';
import path from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { packageRoot } from '../package-root.js';
import { sameForEveryChannel } from '../vision/channel-normalisation.js';
import { decodeImage } from '../vision/decode.js';
import { letterboxInto } from '../vision/letterbox.js';

/** The photo a derived model is checked on: every checkout and package has it. */
export const SAMPLE_PHOTO = path.join(packageRoot(), 'assets', 'photos', 'dog.jpg');

/** The square side of a model's one image input `[1, 3, S, S]`. */
function inputSide(session: Ort.InferenceSession): number {
  const input = session.inputMetadata[0];
  const side = input?.isTensor ? input.shape[3] : undefined;
  if (typeof side !== 'number') throw new Error(`the model's input ${input?.name ?? ''} has no fixed square size`);
  return side;
}

/**
 * Runs both models on the sample photo, letterboxed as the Ultralytics families are fed, and
 * says where their outputs differ; undefined when every output is bit for bit the same. It
 * checks a file this command made before it is kept; serving runs models through the scheduler.
 */
export async function differingOutputs(reference: string, candidate: string): Promise<string | undefined> {
  // Imported here, not with the module: `models pull` loads it for every model, and only a derived one is run.
  const ort = await import('onnxruntime-node');
  const options: Ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1 };
  const sessions = [await ort.InferenceSession.create(reference, options), await ort.InferenceSession.create(candidate, options)];
  try {
    const side = inputSide(sessions[0]!);
    const image = await decodeImage(await fs.readFile(SAMPLE_PHOTO), { maxPixels: Number.MAX_SAFE_INTEGER });
    const pixels = new Float32Array(3 * side * side);
    letterboxInto(image, { width: side, height: side, placement: 'centre', channelOrder: 'rgb', normalise: sameForEveryChannel(1 / 255), padValue: 114 }, pixels);
    image.release();
    const feeds = { [sessions[0]!.inputNames[0]!]: new ort.Tensor('float32', pixels, [1, 3, side, side]) };
    const [expected, actual] = [await sessions[0]!.run(feeds), await sessions[1]!.run(feeds)];
    for (const name of sessions[0]!.outputNames) {
      const a = expected[name]?.data as Float32Array | undefined;
      const b = actual[name]?.data as Float32Array | undefined;
      if (!a || !b || a.length !== b.length) return `output ${name} has another shape`;
      const differing = a.findIndex((value, index) => !Object.is(value, b[index]));
      if (differing >= 0) return `output ${name} differs at value ${differing} (${a[differing]} against ${b[differing]})`;
    }
    return undefined;
  } finally {
    await Promise.all(sessions.map((session) => session.release()));
  }
}
