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
import type { AnalysisCall } from '../tasks/analysis-call.js';
import type { Task } from '../tasks/task.js';
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

/** A caller let in: its service, and the scheduler of the model that answers it (`scheduler.model` is the model). */
export interface Caller {
  readonly service: Service;
  readonly scheduler: ModelScheduler;
}

/** A caller counted against its service's rate limit and quota: what admission takes, so no door reaches the model uncounted. */
export interface CountedCaller extends Caller {
  /** Where the service's limits stand with this call counted (a door's RateLimit headers). */
  readonly standings: readonly LimitStanding[];
}

/** Where a call's gate steps write what they learn (its service and model) and how long they took. */
export interface IdentifyOptions {
  readonly context?: CallContext;
  /** A loaded model by name instead of the service's (DeepStack's custom route). */
  readonly modelName?: string;
}

export interface GateDependencies {
  readonly authenticate: Authenticate;
  readonly authenticateKeyless: AuthenticateKeyless;
  readonly tokens: Pick<StreamTokens, 'redeem'>;
  readonly serviceLimits: Pick<ServiceLimits, 'admit'>;
  readonly schedulers: ModelSchedulers;
  /** Limits of an image call (pixels, detections, the model deadline). */
  readonly limits: AnalysisLimits;
  /** The one bounded reader's limits: size, deadline, memory budget. */
  readonly body: BodyLimits;
}

/**
 * The one gate every call passes, whatever its front door (docs/development.md "Architecture"), as explicit steps
 * that each return a value: `identify` (authenticate — key, bare key, subprotocol, stream token,
 * keyless range — then service state and the model) → `count` (rate limit and quota) → the bounded
 * body (`readBody`, or `readBodyWith` for a door that parses it as it arrives) → `admit` (a place
 * in the model's request lane, for a counted caller only). Streams take `openStream`, then
 * `admitFrame` for every frame. Doors hold no authenticator, limit, model or body reader of their
 * own; they own their wire (headers such as RateLimit and Allow, body forms, answers).
 */
export class Gate {
  constructor(private readonly dependencies: GateDependencies) {}

  /** Authenticate → service state: the caller's service and its model (or a loaded one by name), or a 401/403/404/503 DetectdError. The context learns each as soon as it is known, so that a refusal is recorded against its service. */
  async identify(credentials: Credentials, task: Task, options: IdentifyOptions = {}): Promise<Caller> {
    const { context, modelName } = options;
    const started = performance.now();
    try {
      const service = await this.#authenticate(credentials, task);
      if (context) context.service = service;
      const scheduler = this.#schedulerOf(service, task, modelName);
      if (context) context.model = scheduler.model.name;
      return { service, scheduler };
    } finally {
      if (context) addGateTime(context.timings, started);
    }
  }

  /** Counts one call against its service's rate limit and quota; throws LimitExceededError (429). */
  async count(caller: Caller, context: CallContext): Promise<CountedCaller> {
    const started = performance.now();
    try {
      return { ...caller, standings: await this.dependencies.serviceLimits.admit(caller.service) };
    } finally {
      addGateTime(context.timings, started);
    }
  }

  /**
   * The bounded body, whole: size from Content-Length before a byte is read and before `100
   * Continue`, deadline, memory budget, Content-Encoding. Its arrival is the call's `receive` stage.
   */
  async readBody(request: IncomingMessage, response: ServerResponse, context: CallContext): Promise<Buffer> {
    const started = performance.now();
    const body = await readBody(request, response, this.dependencies.body);
    context.timings.receive = performance.now() - started;
    return body;
  }

  /** The bounded body as it arrives, to a door's own reader (DeepStack's form, whose key may be inside it). */
  async readBodyWith<Body>(request: IncomingMessage, response: ServerResponse, context: CallContext, read: (body: Readable) => Promise<Body>): Promise<Body> {
    const started = performance.now();
    const body = await read(openBody(request, response, this.dependencies.body));
    context.timings.receive = performance.now() - started;
    return body;
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
      await this.dependencies.serviceLimits.admit(service);
    } finally {
      addGateTime(timings, started);
    }
  }

  /** Admission of a counted caller to the model's request lane (or 503 `overloaded`): the call to analyse on. The place is given back when the response closes. */
  admit(caller: CountedCaller, response: ServerResponse, context: CallContext): AnalysisCall {
    const { limits } = this.dependencies;
    const started = performance.now();
    const leave = admitRequest(caller.scheduler, limits);
    const disconnected = new AbortController();
    response.once('close', () => {
      disconnected.abort();
      leave();
    });
    const signal = AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), disconnected.signal]);
    addGateTime(context.timings, started);
    return { service: caller.service, scheduler: caller.scheduler, limits, signal, context };
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
    if (!scheduler) throw new DetectdError('not_found', `Custom model "${modelName}" not found; loaded: ${schedulers.namesOfKind(task.detects).join(', ')}`);
    return scheduler;
  }
}

/**
 * The call's `gate` stage: milliseconds in the gate's own steps (authentication, service state,
 * limits, admission), the body's arrival not included (that is `receive`, the client's pace).
 */
function addGateTime(timings: StageTimings, since: number): void {
  timings.gate = (timings.gate ?? 0) + performance.now() - since;
}
