import WebSocket from 'ws';
import { decodeNvisionMessage, encodeNvisionMessage } from '../../src/transports/stream-nvision/nvision-wire.js';
import { StreamClient } from './stream-client.js';

export const STREAM_PROTOCOLS = ['json', 'nvision'] as const;
export type StreamProtocol = (typeof STREAM_PROTOCOLS)[number];

/** Where a stream goes: a server, a service's key, and the service's task (object detection unless named). */
export interface StreamTarget {
  readonly url: string;
  readonly apiKey: string;
  readonly task?: string;
}

/** What a server answered one frame with. */
export type FrameAnswer =
  | { readonly kind: 'result'; readonly frameId: number; readonly dropped?: number; readonly inferenceMs?: number }
  | { readonly kind: 'error'; readonly code: string };

/** One stream client, whatever its protocol: sends numbered frames, reports each answer. Used by the stream benchmark and the soak. */
export interface StreamConnection {
  send(frame: Buffer, id: number): void;
  /** Calls `listener` with each answer: a result's frame id, the frames it says were dropped before it (JSON) and its inference ms (JSON), or an error's code. */
  onAnswer(listener: (answer: FrameAnswer) => void): void;
  /** Resolves with the close code once the server or the client closed the stream. */
  readonly closed: Promise<number>;
  close(): Promise<void>;
}

async function jsonConnection(target: StreamTarget): Promise<StreamConnection> {
  const client = await StreamClient.start(target.url, target.apiKey, {}, target.task);
  return {
    send: (frame, id) => client.sendFrame(frame, id),
    onAnswer: (listener) =>
      client.socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (message.type === 'result') listener({ kind: 'result', frameId: message.frame_id, dropped: message.dropped, inferenceMs: message.timings.inference });
        if (message.type === 'error') listener({ kind: 'error', code: message.error.code });
      }),
    closed: client.closed.then(({ code }) => code),
    close: () => client.close().then(() => undefined),
  };
}

/** The Nvision protocol as the SDK speaks it: the key as subprotocol, one protobuf NvisionRequest per frame and per result. */
async function nvisionConnection(target: StreamTarget): Promise<StreamConnection> {
  const socket = new WebSocket(target.url.replace(/^http/, 'ws') + `/api/v1/${target.task ?? 'object-detection'}`, target.apiKey);
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    send: (frame, id) => socket.send(encodeNvisionMessage({ frame_id: String(id), raw_data: frame })),
    onAnswer: (listener) =>
      socket.on('message', (data: Buffer) => {
        const message = decodeNvisionMessage(data);
        listener(message.error ? { kind: 'error', code: message.error.code } : { kind: 'result', frameId: Number(message.frame_id) });
      }),
    closed,
    close: async () => {
      socket.close(1000);
      await closed;
    },
  };
}

export const CONNECT_STREAM: Record<StreamProtocol, (target: StreamTarget) => Promise<StreamConnection>> = { json: jsonConnection, nvision: nvisionConnection };
