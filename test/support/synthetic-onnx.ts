import fs from 'node:fs';
import { ONNX_MESSAGES } from '../../src/models/runtimes/onnx/onnx-graph.js';

/**
 * Small ONNX models written at test time (no binaries in the repository): input `images`
 * [1, 3, S, S] or [1, 3, H, W], output `output0` of any shape and values, produced by a Constant node — enough for ONNX
 * Runtime to load and run, and for the loader's checks, in the messages src/models/runtimes/onnx/onnx-graph.ts writes.
 */
const onnx = ONNX_MESSAGES;

const FLOAT = 1;
const ATTRIBUTE_TENSOR = 4;

const valueInfo = (name: string, shape: readonly (number | string)[]) => ({
  name,
  type: { tensorType: { elemType: FLOAT, shape: { dim: shape.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) } } },
});

export interface SyntheticModel {
  /** Input side, or a symbolic name for a dynamic input, or a width and height. */
  readonly inputSize: number | string | { readonly width: number; readonly height: number };
  readonly outputShape: readonly number[];
  /** The output's values, row-major (default all 0). */
  readonly outputValues?: readonly number[];
  /** Written as the model's metadata_props (Ultralytics writes `str()` of Python values). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Bytes of an unused initializer placed before the metadata, standing in for a real model's weights. */
  readonly weightBytes?: number;
  /** The graph's one node (default Constant): an operator ONNX Runtime does not know makes a model it refuses to open. */
  readonly opType?: string;
}

/** Writes the model to `file`. */
export function writeSyntheticOnnx(file: string, model: SyntheticModel): void {
  const [height, width] = typeof model.inputSize === 'object' ? [model.inputSize.height, model.inputSize.width] : [model.inputSize, model.inputSize];
  const values = new Float32Array(model.outputShape.reduce((product, dim) => product * dim, 1));
  values.set(model.outputValues ?? []);
  const constant = { dims: model.outputShape, dataType: FLOAT, rawData: Buffer.from(values.buffer) };
  const message = onnx.lookupType('ModelProto').fromObject({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'synthetic',
      node: [{ output: ['output0'], name: 'constant', opType: model.opType ?? 'Constant', attribute: [{ name: 'value', t: constant, type: ATTRIBUTE_TENSOR }] }],
      initializer: model.weightBytes ? [{ name: 'weights', dims: [model.weightBytes / 4], dataType: FLOAT, rawData: Buffer.alloc(model.weightBytes, 7) }] : [],
      input: [valueInfo('images', [1, 3, height, width])],
      output: [valueInfo('output0', model.outputShape)],
    },
    metadataProps: Object.entries(model.metadata ?? {}).map(([key, value]) => ({ key, value })),
  });
  fs.writeFileSync(file, onnx.lookupType('ModelProto').encode(message).finish());
}

/** Python's `str()` of `{0: 'a', 1: 'b'}`, as Ultralytics writes `names`. */
export const pythonNames = (names: readonly string[]) => `{${names.map((name, index) => `${index}: '${name}'`).join(', ')}}`;
