import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { DetectdError } from '../core/errors.js';
import type { UploadBudget } from './upload-budget.js';

export interface BodyLimits {
  /** Most bytes of the body, counted after decompression. */
  readonly maxBytes: number;
  /** The whole body must arrive within this many milliseconds of the first read. */
  readonly timeoutMs: number;
  /** Shared by all requests; the body's bytes are held in it until the response is done. */
  readonly budget: UploadBudget;
}

/** Seconds a client refused for a spent upload budget is told to wait. */
const BUDGET_RETRY_AFTER_SECONDS = 1;

/** `Content-Encoding` values the server inflates; zlib streams that stop as soon as the inflated size passes the limit. */
const DECODERS: Readonly<Record<string, (() => Transform) | undefined>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** The decoder for the request's `Content-Encoding`, none for identity; one coding at most. */
function decoderFor(request: IncomingMessage): (() => Transform) | undefined {
  const coding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return undefined;
  const decoder = DECODERS[coding];
  if (!decoder) throw new DetectdError('unsupported_content_encoding', `Content-Encoding "${coding.slice(0, 40)}" is not accepted; send gzip, deflate, br or identity (one coding)`);
  return decoder;
}

/** Refuses, from the header alone, a body that announces more than the limit. */
function checkDeclaredLength(request: IncomingMessage, maxBytes: number): void {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    throw new DetectdError('payload_too_large', `Content-Length ${declared} exceeds the body limit of ${maxBytes} bytes`);
  }
}

/** Where the bounded reader hands the body: each chunk within the limits, then the end or the one failure. */
interface BodySink {
  chunk(bytes: Buffer): void;
  end(): void;
  fail(error: DetectdError): void;
}

/**
 * The one bounded reader of request bodies, for routes that have let the caller in (or whose
 * clients send the key inside the body): refuses an oversized `Content-Length` before reading
 * (and before `100 Continue` is sent), inflates gzip/deflate/br while counting the inflated bytes
 * (a compression bomb stops at the limit), holds the bytes in the shared memory budget (503 when
 * spent), and gives up after `timeoutMs` (408) so a slow sender costs a bounded time. On any
 * failure the rest of the body is left unread; the error answer then closes the connection.
 */
function receiveBody(request: IncomingMessage, response: ServerResponse, limits: BodyLimits, sink: BodySink): void {
  checkDeclaredLength(request, limits.maxBytes);
  const decoder = decoderFor(request)?.();
  // The server leaves `Expect: 100-continue` to us: the client sends its body only once the checks above passed.
  if (/^100-continue$/i.test(request.headers.expect ?? '')) response.writeContinue();

  let size = 0;
  let stopped = false;
  const source = decoder ?? request;
  const stop = (error?: DetectdError) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    source.removeListener('data', onData);
    source.removeListener('end', onEnd);
    request.removeListener('aborted', onAborted);
    if (decoder) {
      request.unpipe(decoder);
      decoder.destroy();
    }
    if (error) {
      // Whatever else arrives is dropped until the connection closes.
      request.resume();
      sink.fail(error);
    }
  };
  const onData = (chunk: Buffer) => {
    if (size + chunk.length > limits.maxBytes) {
      stop(new DetectdError('payload_too_large', `request body exceeds the body limit of ${limits.maxBytes} bytes${decoder ? ' once inflated' : ''}`));
      return;
    }
    if (!limits.budget.take(chunk.length)) {
      stop(new DetectdError('overloaded', 'the server holds as many request bodies as its memory budget allows; retry shortly', BUDGET_RETRY_AFTER_SECONDS));
      return;
    }
    size += chunk.length;
    sink.chunk(chunk);
  };
  const onEnd = () => {
    if (!request.complete) return onAborted();
    stop();
    sink.end();
  };
  const onAborted = () => stop(new DetectdError('invalid_request', 'request body was cut short'));
  const timer = setTimeout(
    () => stop(new DetectdError('request_timeout', `request body did not arrive within ${limits.timeoutMs} ms`)),
    limits.timeoutMs,
  );
  source.on('data', onData);
  source.once('end', onEnd);
  request.once('aborted', onAborted);
  // Whatever was taken is given back once the answer is out (or the connection gone): the body lives that long.
  // A body still arriving then (an early answer: a form's bad key, a broken form; or the caller gone) is dropped uncounted.
  response.once('close', () => {
    stop(new DetectdError('invalid_request', 'request body was cut short'));
    limits.budget.give(size);
  });
  if (decoder) {
    decoder.once('error', () => stop(new DetectdError('invalid_encoding', `request body is not valid ${request.headers['content-encoding']} data`)));
    request.pipe(decoder);
  }
}

/** The body whole, read by the bounded reader. */
export function readBody(request: IncomingMessage, response: ServerResponse, limits: BodyLimits): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    receiveBody(request, response, limits, {
      chunk(bytes) {
        chunks.push(bytes);
        size += bytes.length;
      },
      end: () => resolve(Buffer.concat(chunks, size)),
      fail: reject,
    });
  });
}

/** The body as a stream, read by the bounded reader: for a parser that acts on its first parts before the rest arrives (a form's fields ahead of its file). A failure destroys the stream with its DetectdError. */
export function openBody(request: IncomingMessage, response: ServerResponse, limits: BodyLimits): Readable {
  const body = new PassThrough();
  // A parser that gave up early (a form without a boundary) stops listening while the body still
  // arrives; the failure that follows (the answer closing the connection) must not be an uncaught
  // error that ends the process. A reader still listening gets it all the same.
  body.on('error', () => undefined);
  receiveBody(request, response, limits, {
    chunk: (bytes) => body.write(bytes),
    end: () => body.end(),
    fail: (error) => body.destroy(error),
  });
  return body;
}

/** What remains of a body stream, whole (a door that has no use for it still reads it within the limits). */
export async function collectBody(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
