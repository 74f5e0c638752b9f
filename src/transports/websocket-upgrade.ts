import crypto from 'node:crypto';
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError, errorBody } from '../core/errors.js';
import { httpHeadersOf } from './http-errors.js';

/** One WebSocket upgrade request, split up for the routes. */
export interface UpgradeRequest {
  readonly request: IncomingMessage;
  readonly requestId: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The subprotocols the client offered (`Sec-WebSocket-Protocol`), in its order. */
  readonly protocols: readonly string[];
}

/** An upgrade a route has accepted (authenticated, within limits). */
export interface AcceptedUpgrade {
  /** The subprotocol echoed in the 101 reply: a client that offered one fails without it. */
  readonly protocol?: string;
  /** Takes over the WebSocket once the handshake is done. */
  open(socket: WebSocket): void;
}

/** A WebSocket front door: which upgrades it takes, and what it checks before the handshake. */
export interface WebSocketRoute {
  /** "<path> (<protocol>)", for the message that lists the endpoints when no route matches. */
  readonly description: string;
  matches(path: string, protocols: readonly string[]): boolean;
  /** Throws a DetectdError to refuse: the client gets a plain HTTP error and no WebSocket is opened. */
  accept(upgrade: UpgradeRequest): Promise<AcceptedUpgrade>;
}

export interface WebSocketUpgrades {
  /** Stops the WebSocket server; the routes close their own streams first. */
  close(): void;
}

/** Answers a refused upgrade with the service's usual JSON error, then hangs up. */
function refuseUpgrade(socket: Duplex, error: DetectdError, requestId: string, status: number): void {
  const body = JSON.stringify(errorBody(error, requestId));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
    ...httpHeadersOf(error),
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/** The request target split into path and query; never throws, whatever the client sent. */
function splitTarget(request: IncomingMessage): { path: string; query: URLSearchParams } {
  const [path, query = ''] = (request.url ?? '/').split('?', 2);
  return { path, query: new URLSearchParams(query) };
}

const offeredProtocols = (request: IncomingMessage) =>
  (request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter(Boolean);

/**
 * The one listener for WebSocket upgrades on the HTTP server: routes each by path and offered
 * subprotocols to its front door (the JSON stream, the Nvision stream), lets the route check the
 * caller before the handshake, and answers refusals and unknown paths with HTTP errors. Only the
 * path is ever logged: the query may hold a stream token and the subprotocol an API key.
 */
export function attachWebSocketUpgrades(
  server: Server,
  routes: readonly WebSocketRoute[],
  options: {
    maxPayload: number;
    /** The HTTP server's header-count limit: an upgrade with more is refused like any request, never routed with headers cut. */
    maxHeaders: number;
    /** Every error code with its status: the core's and the features'. */
    errors: ErrorCatalogue;
    logger: Logger;
  },
): WebSocketUpgrades {
  const { logger, errors } = options;
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    perMessageDeflate: false,
    handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): Promise<void> {
    if (request.rawHeaders.length / 2 > options.maxHeaders) {
      throw new DetectdError('headers_too_large', `more than ${options.maxHeaders} request headers`);
    }
    const { path, query } = splitTarget(request);
    const protocols = offeredProtocols(request);
    const route = routes.find((candidate) => candidate.matches(path, protocols));
    if (!route) {
      throw new DetectdError('not_found', `no WebSocket endpoint here; the video streams are ${routes.map((known) => known.description).join(' and ')}`);
    }
    const accepted = await route.accept({ request, requestId, path, query, protocols });
    if (accepted.protocol !== undefined) chosenProtocol.set(request, accepted.protocol);
    webSockets.handleUpgrade(request, socket, head, (webSocket) => accepted.open(webSocket));
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = crypto.randomUUID();
    // A client that vanishes mid-handshake must not take the process down.
    socket.on('error', (error) => logger.debug({ request_id: requestId, err: error }, 'upgrade socket error'));
    upgrade(request, socket, head, requestId).catch((error: unknown) => {
      const known = error instanceof DetectdError;
      const refusal = known ? error : new DetectdError('internal_error', 'internal error; quote the request id when reporting it');
      const { path } = splitTarget(request);
      const status = errors.status(refusal.code);
      if (known) logger.info({ request_id: requestId, method: request.method, path, status, code: refusal.code }, 'stream refused');
      else logger.error({ request_id: requestId, path, err: error }, 'stream upgrade failed');
      refuseUpgrade(socket, refusal, requestId, status);
    });
  });

  return { close: () => webSockets.close() };
}
