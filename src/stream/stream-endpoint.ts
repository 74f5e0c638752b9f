import crypto from 'node:crypto';
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { ServiceKeys } from '../accounts/service-keys.js';
import type { Service } from '../accounts/services.js';
import { ApiError, errorBody } from '../core/errors.js';
import type { AnalysisLimits } from '../tasks/object-detection/run.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import type { StreamSettings } from '../config.js';
import { API_KEY_CHALLENGE, authenticateService } from '../transports/http/api-key-auth.js';
import type { ModelRegistry } from '../models/registry.js';
import { ResourcePool } from '../scheduler/resource-pool.js';
import type { Detector } from '../models/types.js';
import { CLOSE_CODES, STREAM_PATH } from './protocol.js';
import { StreamSession } from './stream-session.js';
import type { StreamTokens } from './stream-tokens.js';

/** How long streams get to say goodbye at shutdown before their sockets are cut. */
const SHUTDOWN_GRACE_MS = 2000;

export interface StreamEndpointDependencies {
  readonly keys: ServiceKeys;
  readonly tokens: StreamTokens;
  readonly models: ModelRegistry;
  readonly schemas: SchemaCatalogue;
  readonly settings: StreamSettings;
  readonly analysisLimits: AnalysisLimits;
  /** Frames of all streams in work at once per model: its concurrent runs plus one being prepared. */
  readonly framesInWorkPerModel: number;
  readonly usage: UsageRecorder;
  readonly logger: Logger;
}

export interface StreamEndpoint {
  /** Closes every stream with 1001 and waits for their frames in work to finish. */
  close(): Promise<void>;
}

/** Answers a refused upgrade with the service's usual JSON error, then hangs up. */
function refuseUpgrade(socket: Duplex, error: ApiError, requestId: string): void {
  const body = JSON.stringify(errorBody(error, requestId));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
    ...error.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`);
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
  const turnsByModel = new Map<Detector, ResourcePool<number>>();
  const modelTurns = (detector: Detector) => {
    let turns = turnsByModel.get(detector);
    if (!turns) turnsByModel.set(detector, (turns = new ResourcePool(Array.from({ length: dependencies.framesInWorkPerModel }, (_, index) => index))));
    return turns;
  };

  async function authenticate(request: IncomingMessage, token: string | null): Promise<Service> {
    if (token === null) return authenticateService(dependencies.keys, request.headers.authorization, 'object-detection');
    const service = dependencies.tokens.redeem(token);
    if (!service) throw new ApiError('unauthorized', 'the stream token is unknown, used or expired; get a new one', API_KEY_CHALLENGE);
    return service;
  }

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): Promise<void> {
    const { path, query } = splitTarget(request);
    if (path !== STREAM_PATH) throw new ApiError('not_found', `no WebSocket endpoint here; the video stream is ${STREAM_PATH}`);
    const service = await authenticate(request, query.get('token'));
    if (sessions.size >= settings.maxStreams) {
      throw new ApiError('overloaded', `the server already serves ${settings.maxStreams} streams; retry later`, { 'Retry-After': '5' });
    }
    webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      const detector = dependencies.models.resolve(service.model);
      const session = new StreamSession(webSocket, {
        streamId: requestId,
        service,
        detector,
        modelTurns: modelTurns(detector),
        schemas: dependencies.schemas,
        settings,
        analysisLimits: dependencies.analysisLimits,
        usage: dependencies.usage,
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
      const known = error instanceof ApiError;
      const refusal = known ? error : new ApiError('internal_error', 'internal error; quote the request id when reporting it');
      // Only the path is logged: the query may hold a token.
      const { path } = splitTarget(request);
      if (known) logger.info({ request_id: requestId, method: request.method, path, status: refusal.status, code: refusal.code }, 'stream refused');
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
