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
import type { RoleModel } from '../models/role-models.js';
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
  readonly scheduler: ModelScheduler<RoleModel>;
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
 * How a door reads its body in the lifecycle: `whole` — the bounded body, then the door's parse of
 * it (a REST body in any of its forms); or `streamed` — the door's own reader on the body as it
 * arrives, which hands the gate credentials it finds inside (`found`: DeepStack's `api_key` field,
 * ahead of the image), so that a caller with a wrong key is refused before its image is read.
 */
export type DoorBody<Body> =
  | { readonly whole: (body: Buffer) => Promise<Body> }
  | { readonly streamed: (body: Readable, found: (credentials: Credentials) => Promise<void>) => Promise<Body> };

/** What a door brings to the lifecycle (`pass`): the task, what the request's head says, its hooks. */
export interface Passage<Body> {
  readonly task: Task;
  /** Credentials in the request's head: `Authorization`, the caller's address for a keyless service. */
  readonly credentials: Credentials;
  /** A loaded model by name instead of the service's (DeepStack's custom route). */
  readonly modelName?: string;
  /** Once the caller is counted, before a byte of the body is read: the door's own answer headers (RateLimit) and checks of the head (a Content-Type). */
  readonly counted?: (caller: CountedCaller) => void;
  readonly body: DoorBody<Body>;
}

/** A call through the whole lifecycle: its caller, its body as the door read it, and the call to analyse on. */
export interface Passed<Body> {
  readonly caller: CountedCaller;
  readonly body: Body;
  readonly call: AnalysisCall;
}

/**
 * The one gate every call passes, whatever its front door (docs/development.md "Architecture"): its
 * lifecycle (`pass`), each step returning a value — `identify` (authenticate: key, bare key,
 * subprotocol, stream token, keyless range; then service state and the model) → `count` (rate limit
 * and quota) → the bounded body → `admit` (a place in the model's request lane, for a counted caller
 * only). HTTP doors run it whole with `pass`, bringing only their hooks; streams take `openStream`,
 * then `admitFrame` for every frame. Doors hold no authenticator, limit, model or body reader of
 * their own; they own their wire (headers such as RateLimit and Allow, body forms, answers).
 */
export class Gate {
  constructor(private readonly dependencies: GateDependencies) {}

  /**
   * The gate's lifecycle, declared once here in the order every door runs it (as Fastify declares
   * its hooks once, not per route): who the caller is → counted against its service's rate limit
   * and quota → its body read, bounded → admitted to the model. A door brings only its hooks
   * (Passage). identify → count run before the body is opened when the head carries a key (or the
   * door takes no credentials inside its body); else with the first credentials the door finds
   * inside it, or once it is read with the head's (a keyless address). A stream runs the same steps
   * apart: `identify` once when it opens (`openStream`), `count` for every frame (`admitFrame`),
   * whose bytes the WebSocket already bounded, then its turn at the model (the stream's admission).
   */
  async pass<Body>(request: IncomingMessage, response: ServerResponse, context: CallContext, passage: Passage<Body>): Promise<Passed<Body>> {
    const { task, modelName } = passage;
    let counted: Promise<CountedCaller> | undefined;
    const identifyAndCount = (found: Credentials): Promise<CountedCaller> =>
      (counted ??= (async () => {
        const caller = await this.#count(await this.identify({ ...passage.credentials, ...found }, task, { context, modelName }), context);
        passage.counted?.(caller);
        return caller;
      })());
    const door = passage.body;
    if ('whole' in door || passage.credentials.apiKey !== undefined) await identifyAndCount({});
    const body =
      'whole' in door
        ? await door.whole(await this.#readBody(request, response, context))
        : await this.#readBodyWith(request, response, context, (stream) => door.streamed(stream, async (found) => void (await identifyAndCount(found))));
    const caller = await identifyAndCount({});
    return { caller, body, call: this.#admit(caller, response, context) };
  }

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

  /**
   * A management call: what a service remembers (its people, unknown people, known plates) listed,
   * changed or forgotten with its key. Authenticate → service state (a disabled service or account
   * is refused), and nothing else: no model runs, so none is asked for (a model unloaded or busy
   * refuses no management call), and it counts against no rate limit or quota, which meter
   * analyses. Its owner can always see and delete what the service remembers. The call is recorded
   * as a management call (CallContext.management). docs/faces.md "Memory" names the calls.
   */
  async manage(credentials: Credentials, task: Task, context: CallContext): Promise<Service> {
    const started = performance.now();
    context.management = true;
    try {
      const service = await this.#authenticate(credentials, task);
      context.service = service;
      return service;
    } finally {
      addGateTime(context.timings, started);
    }
  }

  /** Counts one call against its service's rate limit and quota; throws LimitExceededError (429). */
  async #count(caller: Caller, context: CallContext): Promise<CountedCaller> {
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
  async #readBody(request: IncomingMessage, response: ServerResponse, context: CallContext): Promise<Buffer> {
    const started = performance.now();
    const body = await readBody(request, response, this.dependencies.body);
    context.timings.receive = performance.now() - started;
    return body;
  }

  /** The bounded body as it arrives, to a door's own reader (DeepStack's form, whose key may be inside it). */
  async #readBodyWith<Body>(request: IncomingMessage, response: ServerResponse, context: CallContext, read: (body: Readable) => Promise<Body>): Promise<Body> {
    const started = performance.now();
    const body = await read(openBody(request, response, this.dependencies.body));
    context.timings.receive = performance.now() - started;
    return body;
  }

  /** The bounded body alone, for a route that serves no task and so needs no caller (DeepStack's model list). */
  receive(request: IncomingMessage, response: ServerResponse): Promise<Buffer> {
    return readBody(request, response, this.dependencies.body);
  }

  /** The service of `task` that calls without a key from `address` act as, for a route that needs none (DeepStack's model list names its own things); undefined when none accepts them. */
  async keylessService(address: string, task: Task): Promise<Service | undefined> {
    return this.dependencies.authenticateKeyless(address, task.type).catch((error: unknown) => {
      if (error instanceof DetectdError && error.code === 'unauthorized') return undefined;
      throw error;
    });
  }

  /** A key sent to a route that needs none must still be valid: 401/403 unless it opens a service of one of `tasks`, which it returns. */
  async checkKey(apiKey: string, tasks: readonly Task[]): Promise<Service> {
    let refusal: unknown;
    for (const task of new Set(tasks)) {
      try {
        return await this.dependencies.authenticate(apiKey, task.type);
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
  #admit(caller: CountedCaller, response: ServerResponse, context: CallContext): AnalysisCall {
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

  #schedulerOf(service: Service, task: Task, modelName: string | undefined): ModelScheduler<RoleModel> {
    const { schedulers } = this.dependencies;
    if (modelName === undefined) return schedulerOfService(schedulers, service, task.lead);
    const scheduler = schedulers.forService(modelName, task.lead);
    if (!scheduler) throw new DetectdError('not_found', `Custom model "${modelName}" not found; loaded: ${schedulers.namesFor(task.lead).join(', ')}`);
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
