import fs from 'node:fs';
import protobuf from 'protobufjs';

/**
 * Small ONNX models written at test time (no binaries in the repository): input `images`
 * [1, 3, S, S], output `output0` of any shape, produced by a Constant node — enough for ONNX
 * Runtime to load and run, and for the loader's checks. Field numbers from onnx/onnx.proto.
 */
const onnx = protobuf.Root.fromJSON({
  nested: {
    ModelProto: {
      fields: {
        irVersion: { type: 'int64', id: 1 },
        opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
        graph: { type: 'GraphProto', id: 7 },
        metadataProps: { rule: 'repeated', type: 'StringStringEntryProto', id: 14 },
      },
    },
    OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
    StringStringEntryProto: { fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
    GraphProto: {
      fields: {
        node: { rule: 'repeated', type: 'NodeProto', id: 1 },
        name: { type: 'string', id: 2 },
        initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
        input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
        output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
      },
    },
    NodeProto: {
      fields: {
        output: { rule: 'repeated', type: 'string', id: 2 },
        name: { type: 'string', id: 3 },
        opType: { type: 'string', id: 4 },
        attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
      },
    },
    AttributeProto: { fields: { name: { type: 'string', id: 1 }, t: { type: 'TensorProto', id: 5 }, type: { type: 'int32', id: 20 } } },
    TensorProto: {
      fields: { dims: { rule: 'repeated', type: 'int64', id: 1 }, dataType: { type: 'int32', id: 2 }, name: { type: 'string', id: 8 }, rawData: { type: 'bytes', id: 9 } },
    },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
    TypeProto: { fields: { tensorType: { type: 'Tensor', id: 1 } }, nested: { Tensor: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } } } },
    TensorShapeProto: {
      fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
      nested: { Dimension: { fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } } } },
    },
  },
});

const FLOAT = 1;
const ATTRIBUTE_TENSOR = 4;

const valueInfo = (name: string, shape: readonly (number | string)[]) => ({
  name,
  type: { tensorType: { elemType: FLOAT, shape: { dim: shape.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) } } },
});

export interface SyntheticModel {
  /** Input side, or a symbolic name for a dynamic input. */
  readonly inputSize: number | string;
  readonly outputShape: readonly number[];
  /** Written as the model's metadata_props (Ultralytics writes `str()` of Python values). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Bytes of an unused initializer placed before the metadata, standing in for a real model's weights. */
  readonly weightBytes?: number;
  /** The graph's one node (default Constant): an operator ONNX Runtime does not know makes a model it refuses to open. */
  readonly opType?: string;
}

/** Writes the model to `file`. */
export function writeSyntheticOnnx(file: string, model: SyntheticModel): void {
  const size = model.inputSize;
  const values = model.outputShape.reduce((product, dim) => product * dim, 1);
  const constant = { dims: model.outputShape, dataType: FLOAT, rawData: Buffer.alloc(values * 4) };
  const message = onnx.lookupType('ModelProto').fromObject({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'synthetic',
      node: [{ output: ['output0'], name: 'constant', opType: model.opType ?? 'Constant', attribute: [{ name: 'value', t: constant, type: ATTRIBUTE_TENSOR }] }],
      initializer: model.weightBytes ? [{ name: 'weights', dims: [model.weightBytes / 4], dataType: FLOAT, rawData: Buffer.alloc(model.weightBytes, 7) }] : [],
      input: [valueInfo('images', [1, 3, size, size])],
      output: [valueInfo('output0', model.outputShape)],
    },
    metadataProps: Object.entries(model.metadata ?? {}).map(([key, value]) => ({ key, value })),
  });
  fs.writeFileSync(file, onnx.lookupType('ModelProto').encode(message).finish());
}

/** Python's `str()` of `{0: 'a', 1: 'b'}`, as Ultralytics writes `names`. */
export const pythonNames = (names: readonly string[]) => `{${names.map((name, index) => `${index}: '${name}'`).join(', ')}}`;
