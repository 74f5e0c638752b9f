import protobuf from 'protobufjs';

/**
 * Rewrites an ONNX image model's declared input size: the height and width of its one NCHW input
 * become `size`. The shared MobileNetV2 declares 224 × 224 and ONNX Runtime refuses any other,
 * yet its layers are all convolutions ahead of a global average pool, so a smaller input runs
 * the same weights at a fraction of the cost: parking spaces are 40–60 px, so 224² mostly
 * embeds upscaled pixels (docs/states.md has the figures).
 *
 * Only the input's two spatial dims change, and the graph's value_info (shape hints of
 * intermediate tensors, which would now be stale) is dropped; every other byte is copied.
 */

// Field numbers of onnx/onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_INPUT = 11;
const GRAPH_VALUE_INFO = 13;
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_TYPE_SHAPE = 2;
const SHAPE_DIM = 1;
const DIM_VALUE = 1;
const WIRE_LENGTH_DELIMITED = 2;

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

/** `message` with each length-delimited field numbered `number` replaced by `change(payload)`. */
function withField(message: Uint8Array, number: number, change: (payload: Uint8Array) => Uint8Array): Buffer {
  return Buffer.concat(fieldsOf(message).map((field) => (field.number === number ? lengthDelimited(number, change(field.payload!)) : field.encoded)));
}

function fixedDim(value: number): Uint8Array {
  return protobuf.Writer.create().uint32((DIM_VALUE << 3) | 0).int64(value).finish();
}

/** The shape with its dims 2 and 3 (height, width) fixed at `size`; throws unless it has four dims. */
function spatialDims(shape: Uint8Array, size: number): Buffer {
  const fields = fieldsOf(shape);
  const dims = fields.filter((field) => field.number === SHAPE_DIM);
  if (dims.length !== 4) throw new Error(`the model's input has ${dims.length} dims, not NCHW`);
  let dim = 0;
  return Buffer.concat(fields.map((field) => (field.number !== SHAPE_DIM || dim++ < 2 ? field.encoded : lengthDelimited(SHAPE_DIM, fixedDim(size)))));
}

/** The ONNX model `bytes` with its image input `size` × `size`. */
export function withInputSize(bytes: Uint8Array, size: number): Buffer {
  if (!Number.isInteger(size) || size < 32) throw new Error(`an input size must be a whole number of at least 32 pixels, not ${size}`);
  return Buffer.concat(
    fieldsOf(bytes).map((modelField) => {
      if (modelField.number !== MODEL_GRAPH) return modelField.encoded;
      const graph = fieldsOf(modelField.payload!);
      const inputs = graph.filter((field) => field.number === GRAPH_INPUT);
      if (inputs.length !== 1) throw new Error(`the model has ${inputs.length} inputs, not one image`);
      const parts = graph
        .filter((field) => field.number !== GRAPH_VALUE_INFO)
        .map((field) =>
          field.number !== GRAPH_INPUT
            ? field.encoded
            : lengthDelimited(
                GRAPH_INPUT,
                withField(field.payload!, VALUE_INFO_TYPE, (type) => withField(type, TYPE_TENSOR, (tensor) => withField(tensor, TENSOR_TYPE_SHAPE, (shape) => spatialDims(shape, size)))),
              ),
        );
      return lengthDelimited(MODEL_GRAPH, Buffer.concat(parts));
    }),
  );
}
