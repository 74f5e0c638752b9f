import type { ErrorBody } from '../../core/errors.js';
import type { FrameId, FrameTimings, StreamFinding } from '../../streaming/stream-session.js';
import type { Task } from '../../tasks/task.js';

/** Text message from the client, already schema-valid (schemas/stream-client-message.json). */
export type ClientMessage =
  | { type: 'start'; configurations?: { parameter: string; value: string }[]; target_classes?: string[]; source_id?: string }
  | { type: 'frame'; frame_id: FrameId; raw_data?: string; source_id?: string };

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
      /** The frame's camera, when the stream or the frame named one. */
      source_id?: string;
      sequence: number;
      width: number;
      height: number;
      dropped: number;
      /** The visualized frame (base64 JPEG), with OutputVisualizedImage "true": the image API's name for it. */
      raw_data?: string;
      timings: FrameTimings;
    } & Partial<Record<Task['answerField'], StreamFinding[] | unknown>>) // what was found, under the task's answer field
  | {
      type: 'event';
      /** A finding's state settled anew: as many frames in a row as the stream's task asks read it (streaming/state-changes.ts). */
      event: 'state_changed';
      frame_id: FrameId;
      source_id: string;
      /** The finding's `name`: what changed state (a region). */
      name: string;
      from: string | null;
      to: string;
      confidence: number;
      frames: number;
    }
  | ({ type: 'error'; frame_id?: FrameId; retry_after_seconds?: number } & ErrorBody);
