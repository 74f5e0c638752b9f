import crypto from 'node:crypto';
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { CallRecorder } from '../core/call-recorder.js';
import { apiKeyFromAuthorization } from '../accounts/api-keys.js';
import type { Authenticate } from '../accounts/authenticate.js';
import type { Service } from '../accounts/service.js';
import { DetectdError, errorBody } from '../core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../transports/http-errors.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import type { StreamSettings } from '../config.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import { CLOSE_CODES, STREAM_PATH } from './protocol.js';
import { StreamSession } from './stream-session.js';
import type { StreamTokens } from './stream-tokens.js';

/** How long streams get to say goodbye at shutdown before their sockets are cut. */
const SHUTDOWN_GRACE_MS = 2000;

export interface StreamEndpointDependencies {
  readonly authenticate: Authenticate;
  readonly tokens: StreamTokens;
  readonly models: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  readonly settings: StreamSettings;
  readonly analysisLimits: AnalysisLimits;
  readonly calls: CallRecorder;
  readonly logger: Logger;
}

export interface StreamEndpoint {
  /** Closes every stream with 1001 and waits for their frames in work to finish. */
  close(): Promise<void>;
}

/** Answers a refused upgrade with the service's usual JSON error, then hangs up. */
function refuseUpgrade(socket: Duplex, error: DetectdError, requestId: string): void {
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
  const status = httpStatusOf(error);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/** The request target split into path and query; never throws, whatever the client sent. */
function splitTarget(request: IncomingMessage): { path: string; query: URLSearchParams } {
  const [path, query = ''] = (request.url ?? '/').split('?', 2);
  return { path, query: new URLSearchParams(query) };
}

/**
 * Serves `GET /api/v1/object-detection/stream` upgraded to WebSocket on the HTTP server.
 * Authentication (an API key in `Authorization`, or a stream token in `?token=`) and the stream
 * limit are checked before the upgrade, so a refused client gets a plain HTTP error and no
 * WebSocket is ever opened for it.
 */
export function attachStreamEndpoint(server: Server, dependencies: StreamEndpointDependencies): StreamEndpoint {
  const { settings, logger } = dependencies;
  const webSockets = new WebSocketServer({ noServer: true, maxPayload: settings.maxFrameBytes, perMessageDeflate: false });
  const sessions = new Set<StreamSession>();

  async function authenticate(request: IncomingMessage, token: string | null): Promise<Service> {
    if (token === null) return dependencies.authenticate(apiKeyFromAuthorization(request.headers.authorization), 'object-detection');
    const service = dependencies.tokens.redeem(token);
    if (!service) throw new DetectdError('unauthorized', 'the stream token is unknown, used or expired; get a new one');
    return service;
  }

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): Promise<void> {
    const { path, query } = splitTarget(request);
    if (path !== STREAM_PATH) throw new DetectdError('not_found', `no WebSocket endpoint here; the video stream is ${STREAM_PATH}`);
    const service = await authenticate(request, query.get('token'));
    const model = dependencies.models.find(service.model);
    if (!model) throw new DetectdError('model_unavailable', `this service uses model "${service.model}", which this server has not loaded`);
    if (sessions.size >= settings.maxStreams) {
      throw new DetectdError('overloaded', `the server already serves ${settings.maxStreams} streams; retry later`, 5);
    }
    webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      const session = new StreamSession(webSocket, {
        streamId: requestId,
        service,
        model,
        schemas: dependencies.schemas,
        settings,
        analysisLimits: dependencies.analysisLimits,
        calls: dependencies.calls,
        logger,
      });
      sessions.add(session);
      void session.finished.then(() => sessions.delete(session));
    });
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = crypto.randomUUID();
    // A client that vanishes mid-handshake must not take the process down.
    socket.on('error', (error) => logger.debug({ request_id: requestId, err: error }, 'upgrade socket error'));
    upgrade(request, socket, head, requestId).catch((error: unknown) => {
      const known = error instanceof DetectdError;
      const refusal = known ? error : new DetectdError('internal_error', 'internal error; quote the request id when reporting it');
      // Only the path is logged: the query may hold a token.
      const { path } = splitTarget(request);
      if (known) logger.info({ request_id: requestId, method: request.method, path, status: httpStatusOf(refusal), code: refusal.code }, 'stream refused');
      else logger.error({ request_id: requestId, path, err: error }, 'stream upgrade failed');
      refuseUpgrade(socket, refusal, requestId);
    });
  });

  return {
    async close() {
      for (const session of sessions) session.close(CLOSE_CODES.goingAway, 'server shutting down');
      const grace = setTimeout(() => sessions.forEach((session) => session.terminate()), SHUTDOWN_GRACE_MS);
      await Promise.all([...sessions].map((session) => session.finished));
      clearTimeout(grace);
      webSockets.close();
    },
  };
}
