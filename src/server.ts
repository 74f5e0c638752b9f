import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { accountDomain } from './accounts/account-domain.js';
import { loadServerSecret } from './accounts/server-secret.js';
import { buildOpenApiDocument } from './transports/http/openapi.js';
import { SchemaCatalogue } from './core/schema-catalogue.js';
import type { Config } from './config.js';
import { createApp } from './transports/http/app.js';
import { loadModels } from './models/registry.js';
import { packageVersion } from './package-root.js';
import { attachStreamEndpoint } from './stream/stream-endpoint.js';
import { StreamTokens } from './stream/stream-tokens.js';
import { databaseReachable, openDatabase } from './store/database.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { UsageStore } from './usage/usage-store.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests and stream frames finish, writes pending usage, then releases models and database. */
  close(): Promise<void>;
}

/** The composition root: config → stores → models → app → listening server. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  // Images are decoded once per request; libvips' operation cache would only hold memory.
  sharp.cache(false);
  const schemas = new SchemaCatalogue();
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const secret = loadServerSecret(config.secret, config.dataDir);
  const models = await loadModels(config.modelPaths, config.inference, (message) => logger.info(message)).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });
  for (const name of models.names) {
    const detector = models.resolve(name);
    logger.info({ model: name, family: detector.family, runtime: detector.runtime, input: detector.inputSize }, 'model loaded');
  }
  const domain = accountDomain(db, secret, models.names);
  const usageStore = new UsageStore(db);
  const usage = new UsageRecorder(usageStore, logger);
  usage.start();

  const streamTokens = new StreamTokens(config.stream.tokenTtlMs);
  const app = createApp({
    logger,
    keys: domain.keys,
    detection: { models, schemas, limits: config.limits },
    streamTokens,
    readiness: { models: () => models.names, databaseReachable: () => databaseReachable(db) },
    openApi: buildOpenApiDocument(schemas, packageVersion()),
    console: { ...domain, usage: usageStore, models, secret, keyRotationGraceSeconds: config.keyRotationGraceSeconds, publicUrl: config.publicUrl },
    usage,
    trustProxy: config.trustProxy,
  });
  const server = app.listen(config.port, config.host);
  const { limits } = config;
  const streams = attachStreamEndpoint(server, {
    keys: domain.keys,
    tokens: streamTokens,
    models,
    schemas,
    settings: config.stream,
    analysisLimits: { maxPixels: config.stream.maxFramePixels, maxDetections: limits.maxDetections, timeoutMs: limits.requestTimeoutMs },
    framesInWorkPerModel: config.inference.concurrency + 1,
    usage,
    logger,
  });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  logger.info({ url, port, database: config.databaseUrl ? 'postgresql' : 'sqlite' }, 'listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await streams.close();
      await stopped;
      await usage.stop();
      await models.dispose();
      await db.destroy();
      logger.info('stopped');
    })());
  return { url, port, close };
}
