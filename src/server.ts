import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { accountDomain } from './accounts/account-domain.js';
import { keyAuthenticator, keylessAuthenticator } from './accounts/authenticate.js';
import { StreamTokens } from './accounts/stream-tokens.js';
import { loadServerSecret } from './accounts/server-secret.js';
import { consoleRoutes } from './console/console-routes.js';
import { CallMetrics } from './core/call-metrics.js';
import { CallRecorder } from './core/call-recorder.js';
import { IdleCollector } from './core/idle-collector.js';
import { RecentErrors } from './core/recent-errors.js';
import { ServiceLimits } from './limits/service-limits.js';
import type { AnalysisLimits } from './core/pipeline.js';
import { SchemaCatalogue } from './core/schema-catalogue.js';
import { type Config, modelSourcesOf } from './config.js';
import { loadModels } from './models/load-models.js';
import { MODEL_KINDS } from './models/model-roles.js';
import { stepName } from './models/model-step.js';
import type { Detector } from './models/types.js';
import { asDefaultDetector, defaultFaceModelReason, defaultModelReason } from './models/model-repository.js';
import { servedModels, servicesWithoutModel } from './services-without-model.js';
import { packageVersion } from './package-root.js';
import { ModelRunMetrics } from './scheduler/model-run-metrics.js';
import { ModelSchedulers } from './scheduler/model-schedulers.js';
import { composedModels } from './core/service-scheduler.js';
import { databaseReachable, openDatabase, storageLocation } from './store/database.js';
import { StorageHealth } from './store/storage-health.js';
import { holdServerLock } from './store/server-lock.js';
import { loadSharp } from './vision/sharp.js';
import { turboJpeg } from './vision/turbojpeg.js';
import { OpenStreams } from './streaming/open-streams.js';
import { StreamMetrics } from './streaming/stream-metrics.js';
import type { Feature } from './features/feature.js';
import { FeatureSet, schemaOf } from './features/feature-set.js';
import { FEATURES } from './features/index.js';
import type { TaskTable } from './tasks/task-table.js';
import { Gate } from './gate/gate.js';
import { deepStackOpenApiPaths } from './transports/deepstack/deepstack-openapi.js';
import { DEEPSTACK_RESERVED_MODEL_NAMES, deepStackRouteTable } from './transports/deepstack/deepstack-route-table.js';
import { deepStackRoutes } from './transports/deepstack/deepstack-routes.js';
import { createApp } from './transports/http/app.js';
import { createHttpServer, MAX_REQUEST_HEADERS } from './transports/http/http-server.js';
import { UploadBudget } from './gate/upload-budget.js';
import { buildOpenApiDocument } from './transports/http/openapi.js';
import { streamRoutes } from './transports/http/stream-routes.js';
import { jsonStreamRoute } from './transports/stream-json/json-stream-route.js';
import { nvisionStreamRoute } from './transports/stream-nvision/nvision-stream-route.js';
import type { StreamDoor, StreamTransportDependencies } from './transports/websocket-stream.js';
import { attachWebSocketUpgrades } from './transports/websocket-upgrade.js';
import { claimingRouter, RouteLedger } from './transports/route-ledger.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { UsageStore } from './usage/usage-store.js';

/** Calls stopped this long ago: the server is at rest, and collects the garbage its last images left. */
const IDLE_COLLECTION_MS = 2_000;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** The task table every door serves. */
  readonly tasks: TaskTable;
  /** The schedulers of the models it loaded: every model run goes through one (a test takes a model's places to see it busy). */
  readonly schedulers: ModelSchedulers;
  /** Stops accepting, lets in-flight requests and stream frames finish, writes pending usage, then releases models and database. */
  close(): Promise<void>;
}

/**
 * The composition root: config → stores → models and their schedulers → the features → the gate →
 * front doors → listening server. `features` are what the server offers (features/index.ts; a test
 * may add one of its own): every door, the API reference and the console serve what they declare.
 */
export async function startServer(config: Config, logger: Logger, features: readonly Feature[] = FEATURES): Promise<RunningServer> {
  // Images are decoded once per request; libvips' operation cache would only hold memory.
  (await loadSharp()).cache(false);
  // Loaded now, with libvips, so that no first request pays for binding libjpeg-turbo.
  turboJpeg();
  const startedAt = new Date();
  const version = packageVersion();
  // What the features declare, before anything is opened: one that declares an error code twice stops the start here.
  const described = new FeatureSet(features, undefined);
  // On the embedded database, held while the server runs: `detectd restore` refuses to replace it meanwhile.
  const lock = config.databaseUrl ? undefined : holdServerLock(config.dataDir);
  const databaseSettings = { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
  const storage = new StorageHealth(storageLocation(databaseSettings), logger);
  const applied = (migrations: readonly string[]) => {
    if (migrations.length > 0) logger.info({ migrations }, 'database schema brought up to date');
  };
  // The secret before the database: one that cannot be read stops the start with nothing opened.
  const { secret, db } = await (async () => {
    const secret = loadServerSecret(config.secret, config.dataDir);
    const db = await openDatabase(databaseSettings, schemaOf(features), { applied, health: storage });
    return { secret, db };
  })().catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  // What the tasks compose (Task.models) says which models to load; the features that run are built once they are.
  const { steps } = described.tasks;
  const modelSources = modelSourcesOf(config);
  const registry = await loadModels(modelSources, config.inference, (message) => logger.info(message), DEEPSTACK_RESERVED_MODEL_NAMES, steps).catch(async (error: unknown) => {
    await db.destroy();
    lock?.release();
    throw error;
  });
  for (const model of registry.models) {
    logger.info({ model: model.name, role: model.role, kind: model.kind, family: model.family, runtime: model.runtime, input: model.inputSize }, 'model loaded');
  }
  const defaultChoice = defaultModelReason(modelSources, asDefaultDetector(registry, registry.defaultModel));
  logger[defaultChoice.warning ? 'warn' : 'info']({ model: registry.defaultModel.name, chosen: defaultChoice.reason }, 'default model');
  const defaultFaces = registry.defaultOf<Detector>({ role: 'detector', kind: MODEL_KINDS.faces });
  const defaultFacesReason = defaultFaces && defaultFaceModelReason(asDefaultDetector(registry, defaultFaces));
  if (defaultFaces) logger.info({ model: defaultFaces.name, chosen: defaultFacesReason }, 'default face model: the face services that name no model use it');
  // A registry per server, not prom-client's global one: several servers in one process (the tests) keep separate counts.
  const metrics = new Registry();
  const modelMetrics = new ModelRunMetrics(metrics);
  const schedulers = new ModelSchedulers(registry, { maxAdmitted: config.limits.maxPendingRequests, onRun: modelMetrics.ran });
  modelMetrics.watch(schedulers);
  const served = new FeatureSet(features, { db, secret, logger, models: composedModels(schedulers) });
  await served.start();
  /** `build`'s value; when it throws (a route claimed twice), what the start opened is released first, so that a refused start leaves no model worker or connection behind. */
  const releasingOnRefusal = async <Value>(build: () => Value): Promise<Value> => {
    try {
      return build();
    } catch (error) {
      served.stop();
      await registry.dispose();
      await db.destroy();
      lock?.release();
      throw error;
    }
  };
  const { tasks, errors } = served;
  for (const task of tasks.all) {
    const missing = (task.composes ?? []).filter((step) => !step.optional && !registry.defaultOf(step));
    if (missing.length > 0 && registry.defaultOf(task.lead)) {
      const named = missing.map((step) => `${stepName(step)}${step.remedy ? ` (${step.remedy})` : ''}`).join(' and no ');
      logger.warn({ task: task.type, missing: missing.map(stepName) }, `a ${stepName(task.lead)} is loaded but no ${named}: ${task.type} services answer 503 until one is in the models folder`);
    }
  }
  const schemas = new SchemaCatalogue(undefined, tasks.all.flatMap((task) => task.schemas ?? []));
  for (const task of tasks.all) schemas.declaresAnswer(task.responseSchema, task.answerField);
  schemas.prepare(tasks.all.map((task) => task.requestSchema));
  const modelsOfType = (type: string) => tasks.modelsFor(type, registry.models);
  // Every door's routes are claimed in one ledger: a method and path claimed twice stops the start, naming both owners.
  const routes = new RouteLedger();
  const deepStack = await releasingOnRefusal(() => deepStackRouteTable(tasks, served.deepStack, routes));
  // The DeepStack routes' and the features' own routes' part of the API reference does not depend on the caller: built once.
  const frontDoorPaths = Object.assign(deepStackOpenApiPaths(deepStack), ...served.rest.map((feature) => feature.routes.openApiPaths(tasks)));
  const domain = accountDomain(db, secret, { serviceTypes: tasks.types, modelNames: [...new Set(tasks.leads.flatMap((lead) => registry.ofStep(lead).map((model) => model.name)))], modelsOfType, signUp: config.signUp });
  const authenticate = keyAuthenticator(domain.keys);
  // Never silent when the models changed under saved services: each one that cannot be answered is named, with its fix.
  const withoutModel = async () => servicesWithoutModel(await domain.services.listAll(), tasks, registry);
  for (const { service, model, problem, fix } of await withoutModel()) {
    logger.warn({ service_id: service.id, service_name: service.name, model }, `service ${service.name} answers 503 model_unavailable, as ${problem}: ${fix}`);
  }
  // Which face model each face service uses, and why: a pulled face model never silently answers a service (docs/faces.md).
  for (const { service, model, chosen } of servedModels(await domain.services.listAll(), tasks, registry, { role: 'detector', kind: MODEL_KINDS.faces }, `the default face model: ${defaultFacesReason}`)) {
    logger.info({ service_id: service.id, service_name: service.name, model, chosen }, `face service ${service.name} uses ${model}: ${chosen}`);
  }
  const serviceLimits = new ServiceLimits(db);
  const usageStore = new UsageStore(db);
  const usage = new UsageRecorder(usageStore, logger);
  collectDefaultMetrics({ register: metrics, prefix: 'detectd_' });
  const idleCollector = new IdleCollector(IDLE_COLLECTION_MS, logger);
  const recentErrors = new RecentErrors();
  const calls = new CallRecorder(logger, new CallMetrics(metrics), usage, idleCollector, recentErrors);

  const { limits } = config;
  const imageLimits: AnalysisLimits = { maxPixels: limits.maxImagePixels, maxDetections: limits.maxDetections, deadlineMs: limits.requestTimeoutMs };
  const streamTokens = new StreamTokens(db, config.stream.tokenTtlMs);
  const uploads = new UploadBudget(limits.maxUploadBytes);
  new Gauge({
    name: 'detectd_request_body_bytes_held',
    help: 'Bytes of request bodies held in memory (arriving or not yet answered); DETECTD_MAX_UPLOAD_BYTES bounds it.',
    registers: [metrics],
    collect() {
      this.set(uploads.heldBytes);
    },
  });
  const gate = new Gate({
    authenticate,
    authenticateKeyless: keylessAuthenticator(domain.services),
    tokens: streamTokens,
    serviceLimits,
    schedulers,
    limits: imageLimits,
    body: { maxBytes: limits.maxBodyBytes, timeoutMs: limits.bodyTimeoutMs, budget: uploads },
  });
  const app = await releasingOnRefusal(() =>
    createApp({
      logger,
      errors,
      detection: { gate, tasks, schemas, maxBodyBytes: limits.maxBodyBytes },
      frontDoors: [
        consoleRoutes(
          {
            ...domain,
            usage: usageStore,
            serviceLimits,
            models: registry,
            tasks,
            deepStackRoutes: deepStack,
            cards: served.cards,
            consoleAssets: served.consoleAssets,
            errors,
            secret,
            keyRotationGraceSeconds: config.keyRotationGraceSeconds,
            streamTokenSeconds: Math.round(config.stream.tokenTtlMs / 1000),
            publicUrl: config.publicUrl,
            bodyTimeoutMs: limits.bodyTimeoutMs,
            uploads,
            status: {
              version,
              startedAt,
              database: config.databaseUrl ? 'postgresql' : 'sqlite',
              storage: () => storage.state,
              inference: { threads: config.inference.threads, concurrency: config.inference.concurrency },
              schedulers,
              leads: tasks.leads,
              recentErrors,
            },
          },
          logger,
          routes,
        ),
        streamRoutes(gate, tasks, streamTokens, routes),
        ...served.rest.map((feature) => feature.routes.router({ gate, tasks, schemas, schedulers, maxBodyBytes: limits.maxBodyBytes, errors, router: () => claimingRouter(routes, feature.owner) })),
        deepStackRoutes({ gate, table: deepStack, schedulers, maxBodyBytes: limits.maxBodyBytes, version, errors, logger }),
      ],
      readiness: { models: () => registry.models, databaseReachable: () => databaseReachable(db), storage: () => storage.state, servicesWithoutModel: withoutModel },
      docs: { openApi: (serverUrl) => buildOpenApiDocument(schemas, version, serverUrl, frontDoorPaths, tasks, errors), publicUrl: config.publicUrl },
      calls,
      metrics,
      trustProxy: config.trustProxy,
      routes,
    }),
  );
  // Once every route is claimed: a refused start has no usage to write.
  usage.start();
  const server = createHttpServer(app, { headersTimeoutMs: limits.headersTimeoutMs, bodyTimeoutMs: limits.bodyTimeoutMs }, logger).listen(config.port, config.host);
  const streamMetrics = new StreamMetrics(metrics);
  const openStreams = new OpenStreams(config.stream.maxStreams, streamMetrics);
  const door: StreamDoor = { gate, tasks, openStreams };
  const stream: StreamTransportDependencies = { door, settings: config.stream, analysisLimits: { ...imageLimits, maxPixels: config.stream.maxFramePixels }, calls, errors, metrics: streamMetrics, logger };
  const webSockets = attachWebSocketUpgrades(server, [jsonStreamRoute({ ...stream, schemas }), nvisionStreamRoute(stream)], { maxPayload: config.stream.maxFrameBytes, maxHeaders: MAX_REQUEST_HEADERS, errors, logger });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  // Where a person goes next: the console (the first account signs up there) and the API reference.
  const reachedAt = config.publicUrl ?? url;
  logger.info({ url, port, database: config.databaseUrl ? 'postgresql' : 'sqlite', console: `${reachedAt}/console`, docs: `${reachedAt}/docs` }, 'listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await openStreams.closeAll();
      webSockets.close();
      await stopped;
      await usage.stop();
      await serviceLimits.writeUncounted().catch((error: unknown) => logger.error({ err: error }, 'calls counted in memory during a database outage could not be written'));
      idleCollector.stop();
      served.stop();
      await registry.dispose();
      await db.destroy();
      lock?.release();
      logger.info('stopped');
    })());
  return { url, port, tasks, schedulers, close };
}
