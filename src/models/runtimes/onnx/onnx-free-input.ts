import fs from 'node:fs/promises';
import protobuf from 'protobufjs';
import { ValueInfo } from './onnx-file.js';

// Field numbers of onnx/onnx.proto.
const MODEL_GRAPH = 7;
const GRAPH_INPUT = 11;
const GRAPH_VALUE_INFO = 13;
const WIRE_LENGTH_DELIMITED = 2;

interface Dimension {
  dimValue?: number;
  dimParam?: string;
}

/** A message's fields in order: each field's number, its whole encoding (tag included) and, for a length-delimited one, its payload. */
function fieldsOf(bytes: Uint8Array): { field: number; raw: Uint8Array; payload?: Uint8Array }[] {
  const reader = protobuf.Reader.create(bytes);
  const fields = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    if ((tag & 7) === WIRE_LENGTH_DELIMITED) {
      const payload = reader.bytes();
      fields.push({ field: tag >>> 3, raw: bytes.subarray(start, reader.pos), payload });
    } else {
      reader.skipType(tag & 7);
      fields.push({ field: tag >>> 3, raw: bytes.subarray(start, reader.pos) });
    }
  }
  return fields;
}

/** A length-delimited field's whole encoding. */
const lengthDelimited = (field: number, payload: Uint8Array) => protobuf.Writer.create().uint32((field << 3) | WIRE_LENGTH_DELIMITED).bytes(payload).finish();

/**
 * An ONNX model whose image input (its first input of four dimensions, [N, 3, H, W]) takes any height and width: its
 * declared H and W become symbolic, and the graph's recorded intermediate shapes (`value_info`,
 * derived from the old size) are dropped, for ONNX Runtime to infer afresh. A convolutional network
 * pooled globally before its head (MobileNetV2) then runs at any input size; ONNX Runtime refuses an
 * input of another size than a declared fixed one. Every other byte of the file is kept.
 */
export async function withFreeInputSize(modelPath: string): Promise<Uint8Array> {
  const model = await fs.readFile(modelPath);
  let freed = false;
  const graphOf = (payload: Uint8Array) =>
    fieldsOf(payload).flatMap(({ field, raw, payload: value }) => {
      if (field === GRAPH_VALUE_INFO) return [];
      if (field !== GRAPH_INPUT || !value) return [raw];
      const info = ValueInfo.toObject(ValueInfo.decode(value), { longs: Number }) as { name?: string; type?: { tensorType?: { shape?: { dim?: Dimension[] } } } };
      const dims = info.type?.tensorType?.shape?.dim;
      if (freed || !dims || dims.length !== 4) return [raw];
      freed = true;
      dims[2] = { dimParam: 'height' };
      dims[3] = { dimParam: 'width' };
      return [lengthDelimited(GRAPH_INPUT, ValueInfo.encode(ValueInfo.fromObject(info)).finish())];
    });
  return Buffer.concat(fieldsOf(model).map(({ field, raw, payload }) => (field === MODEL_GRAPH && payload ? lengthDelimited(MODEL_GRAPH, Buffer.concat(graphOf(payload))) : raw)));
}
