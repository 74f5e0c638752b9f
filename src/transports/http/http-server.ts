import crypto from 'node:crypto';
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { CORE_ERRORS, DetectdError, errorBody } from '../../core/errors.js';
import { closeAfterAnswer, LINGER_MS } from '../early-answer.js';

/** Most request headers accepted; a request with more is refused 431 whole rather than parsed with some of them dropped. */
export const MAX_REQUEST_HEADERS = 100;

/**
 * How long an idle connection is kept for the client's next request (Node's default is 5 s), sent to
 * clients as `Keep-Alive: timeout=65`. A server that closes an idle connection while the client still
 * holds it in its pool races the client's next request on it, which then fails (`fetch failed`,
 * ECONNRESET). Clients pool idle connections for longer than 5 s: .NET's HttpClient (Blue Iris, Agent
 * DVR) 60 s, as do proxies in front (nginx's upstream keepalive, AWS's load balancers 60 s); a client
 * whose event loop stalls cannot act on the hint in time. Longer than all these, so the client lets go first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;


export interface HttpServerLimits {
  /** The request line and headers must arrive within this long. */
  readonly headersTimeoutMs: number;
  /** The body must arrive within this long (enforced by the gate's bounded reader, gate/bounded-body.ts; the server's own request deadline is a backstop behind it). */
  readonly bodyTimeoutMs: number;
}

/** Node's client errors (raised before a request object exists) → our codes. */
function clientErrorCode(error: NodeJS.ErrnoException): keyof typeof CLIENT_ERROR_MESSAGES {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'invalid_http';
}

const CLIENT_ERROR_MESSAGES = {
  headers_too_large: 'request headers exceed 16 KiB',
  request_timeout: 'the request did not arrive within its deadline',
  invalid_http: 'malformed HTTP request',
} as const satisfies Partial<Record<keyof typeof CORE_ERRORS, string>>;

/**
 * The HTTP/1.1 server in front of the app, with deadlines for slow clients: headers within
 * `headersTimeoutMs`, and a request-wide backstop. `Expect: 100-continue` is left to the route
 * (the gate's bounded reader answers 100 only after the key and the size check); a request that the
 * parser could not read is answered with the JSON error shape, then the connection is closed. Bytes the
 * parser cannot read after a whole request (a client's stray body) leave that request its own answer,
 * after which the connection closes.
 */
export function createHttpServer(app: RequestListener, limits: HttpServerLimits, logger: Logger): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs + 5_000,
      // Node checks the two deadlines above on this period (30 s by default, which would stretch them).
      connectionsCheckingInterval: 500,
    },
    app,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // One more than allowed, so a request over the limit is seen (Node silently drops headers past this count).
  server.maxHeadersCount = MAX_REQUEST_HEADERS + 1;
  server.on('checkContinue', app);
  server.on('checkExpectation', app);
  // Once the server is closing, a connection whose answer was in flight closes when the answer is sent,
  // rather than idling out KEEP_ALIVE_TIMEOUT_MS and holding up the shutdown (Node closes only those already idle).
  const closeWhenAnsweredAfterClose = (_request: IncomingMessage, response: ServerResponse) =>
    response.once('finish', () => {
      if (!server.listening) setImmediate(() => server.closeIdleConnections());
    });
  for (const event of ['request', 'checkContinue', 'checkExpectation']) server.on(event, closeWhenAnsweredAfterClose);
  // Sockets whose request in progress is answered before they close (see below), so that more stray bytes change nothing.
  const closingAfterAnswer = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (closingAfterAnswer.has(socket)) return;
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // Bytes that are no request after one read whole (requests 2.28 sends a POST whose form encodes to nothing with
    // no length, then a chunked body's end, `0\r\n\r\n`): that request gets its own answer, then the connection closes.
    if (inProgress?.req.complete && !inProgress.writableFinished && socket.writable && error.code !== 'ECONNRESET') {
      closingAfterAnswer.add(socket);
      logger.info({ parser_error: error.code }, 'bytes after a request refused; the connection closes after its answer');
      return closeAfterAnswer(inProgress);
    }
    // Node's own answer would have no body; ours has the JSON error shape. Nothing to say to a reset or closed socket.
    if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) return void socket.destroy();
    const code = clientErrorCode(error);
    const requestId = crypto.randomUUID();
    // The parser's code (HPE_…) only: the raw bytes could hold a key.
    logger.info({ request_id: requestId, code, parser_error: error.code }, 'malformed request refused');
    const body = JSON.stringify(errorBody(new DetectdError(code, CLIENT_ERROR_MESSAGES[code]), requestId));
    const status = CORE_ERRORS[code].status;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
  return server;
}

/** Refuses a request whose headers Node cut at `maxHeadersCount`, or that expects something other than `100-continue`. */
export function checkRequestHead(request: IncomingMessage): void {
  if (request.rawHeaders.length > 2 * MAX_REQUEST_HEADERS) {
    throw new DetectdError('headers_too_large', `more than ${MAX_REQUEST_HEADERS} request headers`);
  }
  const expect = request.headers.expect;
  if (expect !== undefined && !/^100-continue$/i.test(expect.trim())) {
    throw new DetectdError('expectation_failed', 'only "Expect: 100-continue" is understood');
  }
}
