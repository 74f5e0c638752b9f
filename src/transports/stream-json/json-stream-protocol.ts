import type { ErrorBody } from '../../core/errors.js';
import type { FrameId, FrameTimings, StreamFinding } from '../../streaming/stream-session.js';
import type { Task } from '../../tasks/task.js';

/** Text message from the client, already schema-valid (schemas/stream-client-message.json). */
export type ClientMessage =
  | { type: 'start'; configurations?: { parameter: string; value: string }[]; target_classes?: string[] }
  | { type: 'frame'; frame_id: FrameId; raw_data?: string };

/** Messages from the server (schemas/stream-server-message.json). */
export type ServerMessage =
  | {
      type: 'ready';
      stream_id: string;
      service_id: string;
      model: string;
      limits: { max_frame_bytes: number; max_frame_pixels: number; idle_timeout_ms: number; rate_limit_per_minute: number | null; monthly_quota: number | null };
    }
  | ({
      type: 'result';
      frame_id: FrameId;
      service_id: string;
      sequence: number;
      width: number;
      height: number;
      dropped: number;
      /** The visualized frame (base64 JPEG), with OutputVisualizedImage "true": the image API's name for it. */
      raw_data?: string;
      timings: FrameTimings;
    } & Partial<Record<Task['answerField'], StreamFinding[] | unknown>>) // what was found, under the task's answer field
  | ({ type: 'error'; frame_id?: FrameId; retry_after_seconds?: number } & ErrorBody);
