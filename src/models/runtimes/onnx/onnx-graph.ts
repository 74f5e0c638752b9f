import protobuf from 'protobufjs';

/**
 * Writes an ONNX model from a graph built in code: float32 weights (initializers), nodes whose
 * attributes are integers or lists of integers, one float32 input and one output of fixed shapes.
 * For a network whose weights ship in another format (face-api's), so that ONNX Runtime runs it.
 */

/** The onnx/onnx.proto messages and fields a model written here uses (and test/support/synthetic-onnx.ts, which also writes metadata, symbolic dimensions and Constant nodes). */
export const ONNX_MESSAGES = protobuf.Root.fromJSON({
  nested: {
    ModelProto: {
      fields: {
        irVersion: { type: 'int64', id: 1 },
        graph: { type: 'GraphProto', id: 7 },
        opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
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
        input: { rule: 'repeated', type: 'string', id: 1 },
        output: { rule: 'repeated', type: 'string', id: 2 },
        name: { type: 'string', id: 3 },
        opType: { type: 'string', id: 4 },
        attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
      },
    },
    AttributeProto: { fields: { name: { type: 'string', id: 1 }, i: { type: 'int64', id: 3 }, t: { type: 'TensorProto', id: 5 }, ints: { rule: 'repeated', type: 'int64', id: 8 }, type: { type: 'int32', id: 20 } } },
    TensorProto: { fields: { dims: { rule: 'repeated', type: 'int64', id: 1 }, dataType: { type: 'int32', id: 2 }, name: { type: 'string', id: 8 }, rawData: { type: 'bytes', id: 9 } } },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
    TypeProto: { fields: { tensorType: { type: 'TensorTypeProto', id: 1 } } },
    TensorTypeProto: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } },
    TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } } },
    Dimension: { fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } } },
  },
});

/** TensorProto.DataType */
const FLOAT = 1;
const INT64 = 7;
/** AttributeProto.AttributeType */
const INT = 2;
const INTS = 7;
/** The opset the nodes are read in (every operator used here is in it unchanged), and the IR version that carries it. */
const OPSET = 13;
const IR_VERSION = 8;

interface Tensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly dataType: number;
  readonly rawData: Uint8Array;
}

const bytesOf = (values: Float32Array | BigInt64Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
const valueInfo = (name: string, dims: readonly number[]) => ({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } } });

/** A graph being built: each call adds a node or a weight and returns the name of its value. */
export class OnnxGraph {
  readonly #nodes: object[] = [];
  readonly #initializers: Tensor[] = [];
  #count = 0;

  /** A float32 weight of shape `dims`. */
  weight(dims: readonly number[], values: Float32Array): string {
    const name = `w${this.#count++}`;
    this.#initializers.push({ name, dims, dataType: FLOAT, rawData: bytesOf(values) });
    return name;
  }

  /** An int64 constant (a Pad's pads, a Reshape's shape). */
  integers(values: readonly number[]): string {
    const name = `i${this.#count++}`;
    this.#initializers.push({ name, dims: [values.length], dataType: INT64, rawData: bytesOf(BigInt64Array.from(values, BigInt)) });
    return name;
  }

  /** The node `opType` on `inputs` with integer `attributes`; its one output. */
  node(opType: string, inputs: readonly string[], attributes: Readonly<Record<string, number | readonly number[]>> = {}): string {
    const name = `n${this.#count++}`;
    const attribute = Object.entries(attributes).map(([key, value]) => (typeof value === 'number' ? { name: key, i: value, type: INT } : { name: key, ints: value, type: INTS }));
    this.#nodes.push({ opType, input: inputs, output: [name], name, attribute });
    return name;
  }

  /** The model's bytes: `input` of `inputDims` in, the value `output` (renamed `outputName`) of `outputDims` out. */
  model(input: { readonly name: string; readonly dims: readonly number[] }, output: { readonly value: string; readonly name: string; readonly dims: readonly number[] }): Uint8Array {
    const nodes = this.#nodes.map((node) => ((node as { output: string[] }).output[0] === output.value ? { ...node, output: [output.name] } : node));
    const graph = { name: 'graph', node: nodes, initializer: this.#initializers, input: [valueInfo(input.name, input.dims)], output: [valueInfo(output.name, output.dims)] };
    return ONNX_MESSAGES.lookupType('ModelProto').encode({ irVersion: IR_VERSION, opsetImport: [{ domain: '', version: OPSET }], graph }).finish();
  }
}
