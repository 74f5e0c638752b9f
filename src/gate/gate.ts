import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticate, AuthenticateKeyless } from '../accounts/authenticate.js';
import type { StreamTokens } from '../accounts/stream-tokens.js';
import type { CallContext } from '../core/call-context.js';
import { DetectdError } from '../core/errors.js';
import { admitRequest, type AnalysisLimits } from '../core/pipeline.js';
import type { Service } from '../core/service.js';
import { modelOfService } from '../core/service-model.js';
import type { LimitStanding, ServiceLimits } from '../limits/service-limits.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import type { ApiVersion, Task, TaskCall } from '../tasks/task.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import { type BodyLimits, readBody } from './bounded-body.js';

/** Who a call says it is, wherever its front door found it. The first present of token, key, keyless address decides. */
export interface Credentials {
  /** A single-use stream token (streams only). */
  readonly token?: string | null;
  /** An API key: `Authorization` (ApiKey, Bearer or bare), a WebSocket subprotocol, a form field. */
  readonly apiKey?: string;
  /** The caller's address, for a door that accepts calls without a key from a service's keyless ranges (DeepStack). */
  readonly keylessAddress?: string;
}

/** A caller let in: its service and the model that answers it. */
export interface Caller {
  readonly service: Service;
  readonly model: ModelScheduler;
}

/** An HTTP call through the gate. */
export interface HttpEntry {
  readonly task: Task;
  /** Credentials of the request head (`Authorization`, the caller's address). */
  readonly head: Credentials;
  /**
   * Credentials a door's clients may send inside the body instead (DeepStack's `api_key` field):
   * asked only when the head carries no key, once the body is read.
   */
  readonly inBody?: (body: Buffer) => Promise<Credentials>;
  /** A loaded model by name instead of the service's (DeepStack's custom route). */
  readonly modelName?: string;
  /** Checks of the request head the door makes once the caller is let in and counted, before a byte of the body is read (its Content-Type). */
  readonly beforeBody?: () => void;
  /** Where the service's limits stand once the call is counted (the door's RateLimit headers). */
  readonly counted?: (standings: readonly LimitStanding[]) => void;
}

/** An HTTP call let in: who, the body, and the task call once it is admitted. */
export interface HttpPass extends Caller {
  readonly body: Buffer;
  /** The task's call on this pass: admitted to the model's request lane on the first use (or 503 `overloaded`). */
  taskCall(version: ApiVersion): TaskCall;
}

export interface GateDependencies {
  readonly authenticate: Authenticate;
  readonly authenticateKeyless: AuthenticateKeyless;
  readonly tokens: Pick<StreamTokens, 'redeem'>;
  readonly serviceLimits: Pick<ServiceLimits, 'admit'>;
  readonly models: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  /** Limits of an image call (pixels, detections, the model deadline). */
  readonly limits: AnalysisLimits;
  /** The one bounded reader's limits: size, deadline, memory budget. */
  readonly body: BodyLimits;
}

/**
 * The one gate every call passes, whatever its front door (README "Architecture"): authenticate
 * (key, bare key, subprotocol, stream token, keyless range) → service state (disabled, model
 * loaded) → rate limit and quota → the bounded body → admission to the model → the task. HTTP
 * doors take `passHttp`, the streams `openStream` and then `admitFrame` for every frame; doors hold
 * no authenticator, limit, model or body reader of their own, so none can skip a step.
 */
export class Gate {
  constructor(private readonly dependencies: GateDependencies) {}

  /** Authenticate → service state: the caller's service and its model (or a loaded one by name), or a 401/403/404/503 DetectdError. */
  async identify(credentials: Credentials, task: Task, modelName?: string): Promise<Caller> {
    const service = await this.#authenticate(credentials, task);
    return { service, model: this.#modelOf(service, task, modelName) };
  }

  /** Counts one call (an HTTP request, a stream frame) against its service's rate limit and quota; throws LimitExceededError (429). */
  count(service: Service): Promise<LimitStanding[]> {
    return this.dependencies.serviceLimits.admit(service);
  }

  /**
   * An HTTP call: who (from the head, else from the body) → service state → limits → the bounded
   * body (size from Content-Length before a byte is read and before `100 Continue`, deadline,
   * memory budget, Content-Encoding). Admission waits for `taskCall`, so a slow upload holds no
   * place. The call's context learns the service and model as soon as they are known, so that a
   * refusal is recorded against its service.
   */
  async passHttp(request: IncomingMessage, response: ServerResponse, context: CallContext, entry: HttpEntry): Promise<HttpPass> {
    const inHead = entry.head.apiKey !== undefined || entry.inBody === undefined;
    const early = inHead ? await this.#letIn(entry.head, entry, context) : undefined;
    entry.beforeBody?.();
    const receiveStarted = performance.now();
    const body = await readBody(request, response, this.dependencies.body);
    context.timings.receive = performance.now() - receiveStarted;
    const caller = early ?? (await this.#letIn({ ...entry.head, ...(await entry.inBody!(body)) }, entry, context));
    return { ...caller, body, taskCall: (version) => this.#taskCall(caller, response, version, context) };
  }

  /** A stream: who → service state. Each of its frames then passes `admitFrame`. */
  openStream(credentials: Credentials, task: Task): Promise<Caller> {
    return this.identify(credentials, task);
  }

  /** One stream frame counted against its service's limits: the engine's per-frame check (StreamSession's `admitFrame`). */
  async admitFrame(service: Service): Promise<void> {
    await this.count(service);
  }

  async #letIn(credentials: Credentials, entry: HttpEntry, context: CallContext): Promise<Caller> {
    const service = await this.#authenticate(credentials, entry.task);
    context.service = service;
    const model = this.#modelOf(service, entry.task, entry.modelName);
    context.model = model.detector.name;
    entry.counted?.(await this.count(service));
    return { service, model };
  }

  async #authenticate(credentials: Credentials, task: Task): Promise<Service> {
    const { authenticate, authenticateKeyless, tokens } = this.dependencies;
    if (credentials.token) {
      const service = await tokens.redeem(credentials.token);
      if (!service) throw new DetectdError('unauthorized', 'the stream token is unknown, used or expired; get a new one');
      if (service.type !== task.type) throw new DetectdError('forbidden', `this stream token belongs to a ${service.type} service, not ${task.type}`);
      return service;
    }
    if (credentials.apiKey === undefined && credentials.keylessAddress !== undefined) return authenticateKeyless(credentials.keylessAddress, task.type);
    return authenticate(credentials.apiKey, task.type);
  }

  #modelOf(service: Service, task: Task, modelName: string | undefined): ModelScheduler {
    const { models } = this.dependencies;
    if (modelName === undefined) return modelOfService(models, service, task.detects);
    const model = models.findOfKind(modelName, task.detects);
    if (!model) throw new DetectdError('not_found', `Custom model "${modelName}" not found; loaded: ${models.all.map((each) => each.detector.name).join(', ')}`);
    return model;
  }

  /** Admission to the model's request lane; the place is given back when the response closes. */
  #taskCall(caller: Caller, response: ServerResponse, version: ApiVersion, context: CallContext): TaskCall {
    const { limits, schemas } = this.dependencies;
    const leave = admitRequest(caller.model, limits);
    const disconnected = new AbortController();
    response.once('close', () => {
      disconnected.abort();
      leave();
    });
    const signal = AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), disconnected.signal]);
    return { version, service: caller.service, model: caller.model, schemas, limits, signal, context };
  }
}
