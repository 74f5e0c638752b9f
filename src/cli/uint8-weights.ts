import protobuf from 'protobufjs';

/**
 * Re-encodes an ONNX model's int8 ConvInteger weights as uint8: each weight and its zero point
 * +128, so every (weight − zero point) the operator computes is unchanged. The upstream
 * quantizations of YOLO26n and YOLOv10n store int8 weights; with the uint8 activations
 * DynamicQuantizeLinear produces, ONNX Runtime's CPU kernels run uint8 weights much faster
 * (docs/models.md has the figures).
 *
 * The file is rewritten field by field: only the converted initializers are re-encoded, every
 * other byte is copied as it is, so nothing the schema below leaves out is lost.
 */

// Field numbers of onnx/onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INITIALIZER = 5;
const WIRE_LENGTH_DELIMITED = 2;
/** TensorProto.DataType */
const UINT8 = 2;
const INT8 = 3;

/** ConvInteger's inputs: x, w, x_zero_point, w_zero_point. */
const CONV_INTEGER_WEIGHT = 1;
const CONV_INTEGER_WEIGHT_ZERO_POINT = 3;

const onnx = protobuf.Root.fromJSON({
  nested: {
    NodeProto: { fields: { input: { rule: 'repeated', type: 'string', id: 1 }, opType: { type: 'string', id: 4 } } },
    // The fields a quantized weight or zero point uses; a tensor with any other is refused, not re-encoded without it.
    TensorProto: {
      fields: {
        dims: { rule: 'repeated', type: 'int64', id: 1, options: { packed: false } },
        dataType: { type: 'int32', id: 2 },
        int32Data: { rule: 'repeated', type: 'int32', id: 5, options: { packed: true } },
        name: { type: 'string', id: 8 },
        rawData: { type: 'bytes', id: 9 },
      },
    },
  },
});
const Node = onnx.lookupType('NodeProto');
const Tensor = onnx.lookupType('TensorProto');

interface NodeMessage {
  input: string[];
  opType: string;
}
interface TensorMessage {
  dims: unknown[];
  dataType: number;
  int32Data: number[];
  name: string;
  rawData: Uint8Array;
}

/** One field of a message: its number, its whole encoding (tag included), and a length-delimited field's payload. */
interface Field {
  readonly number: number;
  readonly encoded: Uint8Array;
  readonly payload: Uint8Array | undefined;
}

function fieldsOf(message: Uint8Array): Field[] {
  const reader = protobuf.Reader.create(message);
  const fields: Field[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    let payload: Uint8Array | undefined;
    if ((tag & 7) === WIRE_LENGTH_DELIMITED) {
      const length = reader.uint32();
      const from = reader.pos;
      reader.skip(length);
      payload = message.subarray(from, reader.pos);
    } else {
      reader.skipType(tag & 7);
    }
    fields.push({ number: tag >>> 3, encoded: message.subarray(start, reader.pos), payload });
  }
  return fields;
}

const lengthDelimited = (number: number, payload: Uint8Array) => protobuf.Writer.create().uint32((number << 3) | WIRE_LENGTH_DELIMITED).bytes(payload).finish();

/** The names of the initializers to convert: the weights of ConvInteger nodes and their zero points, only ever read there. */
function convIntegerWeights(graph: readonly Field[]): Set<string> {
  const weights = new Set<string>();
  const otherUses = new Set<string>();
  for (const field of graph) {
    if (field.number !== GRAPH_NODE) continue;
    const node = Node.decode(field.payload!) as unknown as NodeMessage;
    node.input.forEach((input, index) => {
      const weightInput = node.opType === 'ConvInteger' && (index === CONV_INTEGER_WEIGHT || index === CONV_INTEGER_WEIGHT_ZERO_POINT);
      (weightInput ? weights : otherUses).add(input);
    });
    if (node.opType === 'ConvInteger' && !node.input[CONV_INTEGER_WEIGHT_ZERO_POINT]) {
      throw new Error(`a ConvInteger node reads ${node.input[CONV_INTEGER_WEIGHT]} without a weight zero point`);
    }
  }
  for (const name of otherUses) {
    if (weights.has(name)) throw new Error(`${name} is a ConvInteger weight that other nodes also read`);
  }
  return weights;
}

/** The initializer re-encoded as uint8, or undefined when it is not one of `weights` or not int8. */
function reencoded(payload: Uint8Array, weights: ReadonlySet<string>): Uint8Array | undefined {
  const tensor = Tensor.decode(payload) as unknown as TensorMessage;
  if (!weights.has(tensor.name) || tensor.dataType !== INT8) return undefined;
  if (Buffer.compare(Tensor.encode(tensor).finish(), payload) !== 0) throw new Error(`the initializer ${tensor.name} holds fields this re-encoding does not know`);
  // An int8 v is stored as the byte v & 0xff; v + 128 as a uint8 is that byte with its top bit flipped.
  const uint8 = Tensor.fromObject({ ...tensor, dataType: UINT8, int32Data: tensor.int32Data.map((value) => value + 128) }) as unknown as TensorMessage;
  // A field the tensor does not have stays absent (an empty raw_data would still be written).
  if (Object.hasOwn(tensor, 'rawData')) uint8.rawData = Uint8Array.from(tensor.rawData, (byte) => byte ^ 0x80);
  return Tensor.encode(uint8).finish();
}

/** The model `bytes` with its int8 ConvInteger weights re-encoded as uint8; throws when it has none or is not the kind of model this was made for. */
export function uint8Weights(bytes: Uint8Array): Buffer {
  let converted = 0;
  const model = fieldsOf(bytes).map((modelField) => {
    if (modelField.number !== MODEL_GRAPH) return modelField.encoded;
    const graph = fieldsOf(modelField.payload!);
    const weights = convIntegerWeights(graph);
    const parts = graph.map((field) => {
      const replaced = field.number === GRAPH_INITIALIZER ? reencoded(field.payload!, weights) : undefined;
      if (replaced === undefined) return field.encoded;
      converted++;
      return lengthDelimited(GRAPH_INITIALIZER, replaced);
    });
    return lengthDelimited(MODEL_GRAPH, Buffer.concat(parts));
  });
  if (converted === 0) throw new Error('it has no int8 ConvInteger weights');
  return Buffer.concat(model);
}
