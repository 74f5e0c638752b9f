import fs from 'node:fs/promises';
import protobuf from 'protobufjs';
import type { TensorDeclaration } from '../../types.js';

/**
 * What detectd reads from an ONNX file without running it: the model's metadata properties
 * (where Ultralytics exports write `names`, `imgsz`, `task`, `stride`) and the declared shapes of
 * the graph's inputs and outputs. ONNX Runtime's JavaScript API exposes no metadata properties, and
 * gives the shapes (symbolic dimensions included: onnx-session-entry.ts reads them) only from an open
 * session in a worker, so the file is read as the protobuf it is (onnx/onnx.proto), with no session.
 */
export interface OnnxFileSummary {
  readonly metadata: ReadonlyMap<string, string>;
  readonly inputs: readonly TensorDeclaration[];
  readonly outputs: readonly TensorDeclaration[];
}


// Field numbers of onnx.proto. Only these fields are decoded; everything else is skipped unread.
const MODEL_GRAPH = 7;
const MODEL_METADATA_PROPS = 14;
const GRAPH_INPUT = 11;
const GRAPH_OUTPUT = 12;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

/** The few onnx.proto messages decoded in full; each is small. */
const onnxTypes = protobuf.Root.fromJSON({
  nested: {
    StringStringEntryProto: { fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
    TypeProto: { fields: { tensorType: { type: 'Tensor', id: 1 } }, nested: { Tensor: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } } } },
    TensorShapeProto: {
      fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
      nested: { Dimension: { fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } } } },
    },
  },
});
const StringStringEntry = onnxTypes.lookupType('StringStringEntryProto');
/** onnx.proto's ValueInfoProto as far as a tensor's name, type and shape: what onnx-free-input.ts rewrites too. */
export const ValueInfo = onnxTypes.lookupType('ValueInfoProto');

interface ValueInfoMessage {
  name?: string;
  type?: { tensorType?: { shape?: { dim?: { dimValue?: number | protobuf.Long; dimParam?: string }[] } } };
}

/** A field of a message, located in the file: where its value starts and how long it is. */
interface FieldLocation {
  readonly field: number;
  readonly start: number;
  readonly length: number;
}

/** Reads a file at arbitrary offsets through a window, so that walking many small fields costs few reads. */
class FileWindow {
  static readonly SIZE = 64 * 1024;
  #buffer = Buffer.alloc(0);
  #start = 0;

  constructor(
    private readonly file: fs.FileHandle,
    readonly size: number,
  ) {}

  /** Up to `length` bytes at `position` (fewer only at the end of the file). */
  async bytes(position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, this.size);
    if (position < this.#start || end > this.#start + this.#buffer.length) {
      const buffer = Buffer.alloc(Math.max(FileWindow.SIZE, end - position));
      const { bytesRead } = await this.file.read(buffer, 0, buffer.length, position);
      this.#buffer = buffer.subarray(0, bytesRead);
      this.#start = position;
    }
    return this.#buffer.subarray(position - this.#start, end - this.#start);
  }
}

class MalformedOnnx extends Error {}

/**
 * The fields of the message stored in [start, end), one by one, reading only their headers:
 * a length-delimited field's payload (e.g. an initializer's weights) is stepped over, never read.
 */
async function* fieldsOf(window: FileWindow, start: number, end: number): AsyncGenerator<FieldLocation> {
  let position = start;
  while (position < end) {
    // A tag and a length are two varints of at most 10 bytes each.
    const header = await window.bytes(position, 20);
    const reader = protobuf.Reader.create(header);
    let tag: number;
    let length = 0;
    try {
      tag = reader.uint32();
      const wireType = tag & 7;
      if (wireType === WIRE_LENGTH_DELIMITED) length = reader.uint32();
      else if (wireType === WIRE_VARINT) reader.skipType(WIRE_VARINT);
      else if (wireType === WIRE_FIXED64) length = 8;
      else if (wireType === WIRE_FIXED32) length = 4;
      else throw new MalformedOnnx(`unexpected protobuf wire type ${wireType}`);
    } catch (error) {
      if (error instanceof MalformedOnnx) throw error;
      throw new MalformedOnnx(`truncated protobuf field at byte ${position}`);
    }
    const valueStart = position + reader.pos;
    const valueEnd = valueStart + length;
    if (valueEnd > end) throw new MalformedOnnx(`a protobuf field at byte ${position} runs past the end of its message`);
    yield { field: tag >>> 3, start: valueStart, length };
    position = valueEnd;
  }
}

function tensorDeclaration(bytes: Uint8Array): TensorDeclaration {
  const message = ValueInfo.toObject(ValueInfo.decode(bytes), { longs: Number }) as ValueInfoMessage;
  const dims = message.type?.tensorType?.shape?.dim;
  return {
    name: message.name ?? '',
    shape: dims?.map((dim) => (dim.dimValue !== undefined ? Number(dim.dimValue) : (dim.dimParam ?? null))),
  };
}

/**
 * Reads an ONNX file's metadata and input/output declarations. Only the model's top-level fields
 * and the graph's field headers are walked; node and initializer payloads are skipped, so a large
 * model costs about as little as a small one. Throws when the file is not an ONNX model.
 */
export async function readOnnxFile(modelPath: string): Promise<OnnxFileSummary> {
  const file = await fs.open(modelPath, 'r');
  try {
    const window = new FileWindow(file, (await file.stat()).size);
    const metadata = new Map<string, string>();
    const inputs: TensorDeclaration[] = [];
    const outputs: TensorDeclaration[] = [];
    let sawGraph = false;
    for await (const field of fieldsOf(window, 0, window.size)) {
      if (field.field === MODEL_METADATA_PROPS) {
        const entry = StringStringEntry.toObject(StringStringEntry.decode(await window.bytes(field.start, field.length))) as { key?: string; value?: string };
        if (entry.key !== undefined) metadata.set(entry.key, entry.value ?? '');
      } else if (field.field === MODEL_GRAPH && field.length > 0) {
        sawGraph = true;
        for await (const graphField of fieldsOf(window, field.start, field.start + field.length)) {
          if (graphField.field !== GRAPH_INPUT && graphField.field !== GRAPH_OUTPUT) continue;
          const declaration = tensorDeclaration(Buffer.from(await window.bytes(graphField.start, graphField.length)));
          (graphField.field === GRAPH_INPUT ? inputs : outputs).push(declaration);
        }
      }
    }
    if (!sawGraph) throw new MalformedOnnx('it has no graph');
    return { metadata, inputs, outputs };
  } catch (error) {
    if (error instanceof MalformedOnnx || error instanceof RangeError || (error instanceof Error && /invalid wire type|index out of range/.test(error.message))) {
      throw new Error(`${modelPath} is not a readable ONNX model: ${error.message}`);
    }
    throw error;
  } finally {
    await file.close();
  }
}
