import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Authenticate, AuthenticateKeyless } from '../accounts/authenticate.js';
import type { StreamTokens } from '../accounts/stream-tokens.js';
import type { CallContext, StageTimings } from '../core/call-context.js';
import { DetectdError } from '../core/errors.js';
import { admitRequest, type AnalysisLimits } from '../core/pipeline.js';
import type { Service } from '../core/service.js';
import { schedulerOfService } from '../core/service-scheduler.js';
import type { LimitStanding, ServiceLimits } from '../limits/service-limits.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { ModelSchedulers } from '../scheduler/model-schedulers.js';
import type { ApiVersion, Task, TaskCall } from '../tasks/task.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import { type BodyLimits, openBody, readBody } from './bounded-body.js';
import { withArticle } from '../indefinite-article.js';

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
  readonly scheduler: ModelScheduler;
}

/** An HTTP call through the gate. */
export interface HttpEntry {
  readonly task: Task;
  /** Credentials of the request head (`Authorization`, the caller's address). */
  readonly head: Credentials;
  /** A loaded model by name instead of the service's (DeepStack's custom route). */
  readonly modelName?: string;
  /** Checks of the request head the door makes once the caller is let in and counted, before a byte of the body is read (its Content-Type). */
  readonly beforeBody?: () => void;
  /** Where the service's limits stand once the call is counted (the door's RateLimit headers). */
  readonly counted?: (standings: readonly LimitStanding[]) => void;
}

/** An HTTP call let in: who, its body (as the door read it), and its task call. */
export interface HttpPass<Body> extends Caller {
  readonly body: Body;
  /** The task's call on this pass, admitted to the model's request lane (or 503 `overloaded`). */
  taskCall(version: ApiVersion): TaskCall;
}

/**
 * A door's reader of a streamed body whose clients may send their key inside it (DeepStack's
 * `api_key` field): it calls `letIn` with the credentials it finds as soon as it has them (ahead
 * of the image, so an unknown key costs no image upload), and may call it again at the end; the
 * first call decides, and with no call at all the head's credentials do.
 */
export type BodyWithCredentials<Body> = (body: Readable, letIn: (credentials: Credentials) => Promise<void>) => Promise<Body>;

export interface GateDependencies {
  readonly authenticate: Authenticate;
  readonly authenticateKeyless: AuthenticateKeyless;
  readonly tokens: Pick<StreamTokens, 'redeem'>;
  readonly serviceLimits: Pick<ServiceLimits, 'admit'>;
  readonly schedulers: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  /** Limits of an image call (pixels, detections, the model deadline). */
  readonly limits: AnalysisLimits;
  /** The one bounded reader's limits: size, deadline, memory budget. */
  readonly body: BodyLimits;
}

/**
 * The one gate every call passes, whatever its front door (docs/development.md "Architecture"): authenticate
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
    return { service, scheduler: this.#schedulerOf(service, task, modelName) };
  }

  /** Counts one call (an HTTP request, a stream frame) against its service's rate limit and quota; throws LimitExceededError (429). */
  #count(service: Service): Promise<LimitStanding[]> {
    return this.dependencies.serviceLimits.admit(service);
  }

  /**
   * An HTTP call: who (from the request head) → service state → limits → the bounded
   * body (size from Content-Length before a byte is read and before `100 Continue`, deadline,
   * memory budget, Content-Encoding). Admission waits for `taskCall`, so a slow upload holds no
   * place. The call's context learns the service and model as soon as they are known, so that a
   * refusal is recorded against its service.
   */
  async passHttp(request: IncomingMessage, response: ServerResponse, context: CallContext, entry: HttpEntry): Promise<HttpPass<Buffer>> {
    const caller = await this.#letIn(entry.head, entry, context);
    entry.beforeBody?.();
    const receiveStarted = performance.now();
    const body = await readBody(request, response, this.dependencies.body);
    context.timings.receive = performance.now() - receiveStarted;
    return { ...caller, body, taskCall: (version) => this.#taskCall(caller, response, version, context) };
  }

  /**
   * `passHttp` for a door whose clients may send the key inside the body: with a key in the head,
   * the caller is let in before the body is opened; otherwise the bounded body (its size checked,
   * `100 Continue` sent) goes to `read`, which lets the caller in with what it finds there.
   */
  async passHttpWithBodyCredentials<Body>(request: IncomingMessage, response: ServerResponse, context: CallContext, entry: HttpEntry, read: BodyWithCredentials<Body>): Promise<HttpPass<Body>> {
    let letIn: Promise<Caller> | undefined = entry.head.apiKey === undefined ? undefined : this.#letIn(entry.head, entry, context);
    await letIn;
    entry.beforeBody?.();
    const receiveStarted = performance.now();
    const body = await read(openBody(request, response, this.dependencies.body), async (credentials) => {
      letIn ??= this.#letIn({ ...entry.head, ...credentials }, entry, context);
      await letIn;
    });
    context.timings.receive = performance.now() - receiveStarted;
    const caller = await (letIn ?? this.#letIn(entry.head, entry, context));
    return { ...caller, body, taskCall: (version) => this.#taskCall(caller, response, version, context) };
  }

  /** The bounded body alone, for a route that serves no task and so needs no caller (DeepStack's model list). */
  receive(request: IncomingMessage, response: ServerResponse): Promise<Buffer> {
    return readBody(request, response, this.dependencies.body);
  }

  /** A key sent to a route that needs none must still be valid: 401/403 unless it opens a service of one of `tasks`. */
  async checkKey(apiKey: string, tasks: readonly Task[]): Promise<void> {
    let refusal: unknown;
    for (const task of new Set(tasks)) {
      try {
        await this.dependencies.authenticate(apiKey, task.type);
        return;
      } catch (error) {
        // A key of another task's service is refused `forbidden`: the next task may be its own.
        if (!(error instanceof DetectdError && error.code === 'forbidden')) throw error;
        refusal ??= error;
      }
    }
    throw refusal ?? new DetectdError('unauthorized', 'no task takes keys here');
  }

  /** A stream: who → service state. Each of its frames then passes `admitFrame`. */
  openStream(credentials: Credentials, task: Task): Promise<Caller> {
    return this.identify(credentials, task);
  }

  /** One stream frame counted against its service's limits: the engine's per-frame check (StreamSession's `admitFrame`), timed as the frame's `gate` stage. */
  async admitFrame(service: Service, timings: StageTimings): Promise<void> {
    const started = performance.now();
    try {
      await this.#count(service);
    } finally {
      addGateTime(timings, started);
    }
  }

  async #letIn(credentials: Credentials, entry: HttpEntry, context: CallContext): Promise<Caller> {
    const started = performance.now();
    try {
      const service = await this.#authenticate(credentials, entry.task);
      context.service = service;
      const scheduler = this.#schedulerOf(service, entry.task, entry.modelName);
      context.model = scheduler.detector.name;
      entry.counted?.(await this.#count(service));
      return { service, scheduler };
    } finally {
      addGateTime(context.timings, started);
    }
  }

  async #authenticate(credentials: Credentials, task: Task): Promise<Service> {
    const { authenticate, authenticateKeyless, tokens } = this.dependencies;
    if (credentials.token) {
      const service = await tokens.redeem(credentials.token);
      if (!service) throw new DetectdError('unauthorized', 'the stream token is unknown, used or expired; get a new one');
      if (service.type !== task.type) throw new DetectdError('forbidden', `this stream token belongs to a service of type ${service.type}; this stream needs one of ${withArticle(task.type)} service`);
      return service;
    }
    if (credentials.apiKey === undefined && credentials.keylessAddress !== undefined) return authenticateKeyless(credentials.keylessAddress, task.type);
    return authenticate(credentials.apiKey, task.type);
  }

  #schedulerOf(service: Service, task: Task, modelName: string | undefined): ModelScheduler {
    const { schedulers } = this.dependencies;
    if (modelName === undefined) return schedulerOfService(schedulers, service, task.detects);
    const scheduler = schedulers.findOfKind(modelName, task.detects);
    if (!scheduler) throw new DetectdError('not_found', `Custom model "${modelName}" not found; loaded: ${schedulers.all.map((each) => each.detector.name).join(', ')}`);
    return scheduler;
  }

  /** Admission to the model's request lane; the place is given back when the response closes. */
  #taskCall(caller: Caller, response: ServerResponse, version: ApiVersion, context: CallContext): TaskCall {
    const { limits, schemas } = this.dependencies;
    const started = performance.now();
    const leave = admitRequest(caller.scheduler, limits);
    const disconnected = new AbortController();
    response.once('close', () => {
      disconnected.abort();
      leave();
    });
    const signal = AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), disconnected.signal]);
    addGateTime(context.timings, started);
    return { version, service: caller.service, scheduler: caller.scheduler, schemas, limits, signal, context };
  }
}

/**
 * The call's `gate` stage: milliseconds in the gate's own steps (authentication, service state,
 * limits, admission), the body's arrival not included (that is `receive`, the client's pace).
 */
function addGateTime(timings: StageTimings, since: number): void {
  timings.gate = (timings.gate ?? 0) + performance.now() - since;
}
