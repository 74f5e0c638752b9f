import path from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from '../../package-root.js';
import type { TrackAnswer } from '../../streaming/track-votes.js';

export interface NvisionBoundingBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface NvisionObject {
  name: string;
  parent: string;
  confidence: number;
  bounding_box: NvisionBoundingBox;
  cropped_image?: Buffer;
  /** detectd's: the object's track id, and its track's decided answer (the SDK skips both). */
  track_id?: number;
  track?: TrackAnswer;
}

/** schemas/nvision.proto's NvisionRequest with snake_case names, as decoded (absent fields: proto3 defaults). */
export interface NvisionMessage {
  encoding?: number;
  service_id?: string;
  source_id?: string;
  frame_id?: string;
  created_at?: string;
  raw_data?: Buffer;
  target_classes?: string[];
  configurations?: { parameter: string; value: string }[];
  detected_objects?: NvisionObject[];
  detected_faces?: NvisionObject[];
  error?: { code: string; message: string; request_id: string; retry_after_seconds?: number };
}

export const ENCODING_BASE64 = 1;

/**
 * The .proto under schemas/ is the single truth of the wire format, loaded once with protobufjs
 * (reflection, no generated code to keep in step) keeping the field names as written, so that
 * messages read and write as the SDK spells them.
 */
const nvisionRequest = new protobuf.Root().loadSync(path.join(packageRoot(), 'schemas', 'nvision.proto'), { keepCase: true }).lookupType('nvision.NvisionRequest');

/** Decodes one binary message; throws protobufjs's error when the bytes are not an NvisionRequest. */
export function decodeNvisionMessage(bytes: Uint8Array): NvisionMessage {
  const decoded = nvisionRequest.decode(bytes);
  return nvisionRequest.toObject(decoded, { bytes: Buffer, defaults: true, arrays: true }) as NvisionMessage;
}

export function encodeNvisionMessage(message: NvisionMessage): Buffer {
  const encoded = nvisionRequest.encode(nvisionRequest.fromObject(message)).finish();
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}
