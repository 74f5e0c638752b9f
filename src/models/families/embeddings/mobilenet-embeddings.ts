import type { CropsSpec } from '../../../vision/crops.js';
import type { Box, Point } from '../../../vision/image.js';
import type { Embedder } from '../../embedder.js';
import { MODEL_KINDS } from '../../model-roles.js';
import type { RawOutput } from '../../types.js';
import type { Family } from '../family.js';
import { tensorNamed } from '../tensors.js';

/** The output the family reads: the globally pooled features ahead of the classifier, [N, C, 1, 1] (or [N, C]). */
const EMBEDDING = 'embedding';

/**
 * Side of the square each region is sampled at unless the model's configuration says otherwise
 * (`inputSize`): the network's own. Smaller sides cost less (docs/models.md has the figures).
 */
const DEFAULT_EMBEDDING_SIDE = 224;

/** torchvision's ImageNet normalisation, which MobileNetV2 of the ONNX Model Zoo was trained with. */
const IMAGENET = { scale: 1 / 255, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] } as const;

/** Each row of `output`'s embedding, made unit length (L2): one vector per region. */
function unitVectors(output: RawOutput, count: number): Float32Array[] {
  const { data, dims } = tensorNamed(output, EMBEDDING);
  if (dims[0] !== count) throw new Error(`the embedder answered ${dims[0]} vectors for ${count} regions`);
  const size = data.length / count;
  const vectors: Float32Array[] = [];
  for (let n = 0; n < count; n++) {
    const vector = data.slice(n * size, (n + 1) * size);
    let squared = 0;
    for (const value of vector) squared += value * value;
    const norm = Math.sqrt(squared);
    if (norm > 0) for (let k = 0; k < size; k++) vector[k] /= norm;
    vectors.push(vector);
  }
  return vectors;
}

/**
 * An ImageNet MobileNetV2 with its pooled features as an output named `embedding`
 * (../shared/models/embedders/README.md, `mobilenetv2-12-int8-emb.onnx`): each region of the image
 * is stretched over a square of `inputSize` pixels (224 unless configured; the graph's input is
 * opened at that size, the network being convolutional up to its global pool), normalised per
 * channel as ImageNet, all regions of one image in one batch; each answer is the region's pooled
 * features made unit length. A model naming no family is recognised by its `embedding` output.
 */
export const mobilenetEmbeddings: Family<Embedder> = {
  name: 'mobilenetv2-embeddings',
  role: 'embedder',
  kind: MODEL_KINDS.imageEmbeddings,
  recognises: (outputs) => outputs.some((output) => output.name === EMBEDDING),
  freeInputSize: true,
  async load({ description, opened, served }) {
    const side = description.inputSize ?? DEFAULT_EMBEDDING_SIDE;
    const layoutOf = (crops: readonly Box[], polygons?: readonly (readonly Point[] | undefined)[]): CropsSpec => ({ crops, width: side, height: side, normalise: IMAGENET, polygons });
    const dimsOf = (count: number) => [count, 3, side, side];
    const warmUp = await opened.warmUp(layoutOf([{ left: 0, top: 0, right: side, bottom: side }]), dimsOf(1));
    const [size] = unitVectors(warmUp, 1).map((vector) => vector.length);
    return {
      ...served,
      role: 'embedder',
      inputSize: { width: side, height: side },
      size,
      async embed(image, regions, polygons) {
        if (regions.length === 0) return { vectors: [], timings: { preprocess: 0, inference: 0, postprocess: 0 } };
        const started = performance.now();
        const output = await opened.run(image, layoutOf(regions, polygons), dimsOf(regions.length), false);
        const ran = performance.now();
        const vectors = unitVectors(output, regions.length);
        const preprocess = output.preprocessMs ?? 0;
        return { vectors, timings: { preprocess, inference: ran - started - preprocess, postprocess: performance.now() - ran } };
      },
    };
  },
};
