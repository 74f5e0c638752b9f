import type { IncomingMessage } from 'node:http';
import { text } from 'node:stream/consumers';
import WebSocket, { type ClientOptions } from 'ws';

/** A server message as the test sees it (schemas/stream-server-message.json). */
export type Message = Record<string, any> & { type: 'ready' | 'result' | 'event' | 'error' };

/** The JSON stream of a task (object detection unless `task` names another). */
export const streamUrl = (serverUrl: string, token?: string, task = 'object-detection') =>
  serverUrl.replace(/^http/, 'ws') + `/api/v1/${task}/stream` + (token ? `?token=${encodeURIComponent(token)}` : '');

/** A real WebSocket client of the video stream that records every message and the close. */
export class StreamClient {
  readonly messages: Message[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      if (isBinary) throw new Error('the server sent a binary message');
      this.messages.push(JSON.parse(String(data)) as Message);
      this.#waiters.splice(0).forEach((wake) => wake());
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    void this.closed.then(() => this.#waiters.splice(0).forEach((wake) => wake()));
  }

  static open(url: string, options: ClientOptions = {}): Promise<StreamClient> {
    const socket = new WebSocket(url, options);
    const client = new StreamClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused with ${response.statusCode}`)));
      socket.once('error', reject);
    });
  }

  /** Opens a stream with an API key and sends `start`; resolves once `ready` arrived. */
  static async start(serverUrl: string, apiKey: string, configurations: Record<string, string> = {}, task?: string): Promise<StreamClient> {
    const client = await StreamClient.open(streamUrl(serverUrl, undefined, task), { headers: { Authorization: `ApiKey ${apiKey}` } });
    client.sendJson({ type: 'start', configurations: Object.entries(configurations).map(([parameter, value]) => ({ parameter, value })) });
    await client.waitFor((messages) => messages.some((message) => message.type === 'ready'));
    return client;
  }

  sendJson(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** One binary frame, announced by a header naming it when `frameId` is given. */
  sendFrame(bytes: Buffer, frameId?: number | string): void {
    if (frameId !== undefined) this.sendJson({ type: 'frame', frame_id: frameId });
    this.socket.send(bytes);
  }

  /** Resolves once `done(messages)` holds; rejects if the stream closes first or after `timeoutMs`. */
  waitFor(done: (messages: Message[]) => boolean, timeoutMs = 30_000): Promise<Message[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; messages so far: ${JSON.stringify(this.summary())}`)), timeoutMs);
      const check = () => {
        if (done(this.messages)) {
          clearTimeout(timer);
          resolve(this.messages);
        } else if (this.socket.readyState === WebSocket.CLOSED) {
          clearTimeout(timer);
          reject(new Error(`stream closed; messages: ${JSON.stringify(this.summary())}`));
        } else {
          this.#waiters.push(check);
        }
      };
      check();
    });
  }

  results(): Message[] {
    return this.messages.filter((message) => message.type === 'result');
  }

  summary(): unknown[] {
    return this.messages.map(({ type, frame_id, error }) => ({ type, frame_id, error }));
  }

  async close(): Promise<void> {
    this.socket.close(1000);
    await this.closed;
  }
}

/** Tries to open a stream and returns the HTTP answer that refused the upgrade. */
export function refusedUpgrade(url: string, options: ClientOptions = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: any }> {
  const socket = new WebSocket(url, options);
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      text(response).then((body) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(body) }), reject);
    });
  });
}
