import { isAscii } from 'node:buffer';
import { Readable } from 'node:stream';
import { setTimeout as nextTurn } from 'node:timers/promises';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { Authenticate } from '../../accounts/authenticate.js';
import { DetectdError } from '../../core/errors.js';
import type { AnalysisLimits } from '../../core/pipeline.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import { modelOfService } from '../../core/service-model.js';
import type { ServiceLimits } from '../../limits/service-limits.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import { TASK_TYPES, taskByType } from '../../tasks/index.js';
import type { ApiVersion, Configuration, Task, TaskCall } from '../../tasks/task.js';
import { admitHttpCall } from '../admit-call.js';
import { IMAGE_FIELD, isMultipartForm, readImageForm } from '../image-form.js';
import { requireApiKey } from './api-key-auth.js';
import { contextOf } from '../request-context.js';
import { enforceServiceLimits } from '../service-limits.js';
import { readBody } from './request-body.js';
import type { UploadBudget } from './upload-budget.js';

export interface DetectionRouteDependencies {
  readonly authenticate: Authenticate;
  readonly models: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  readonly limits: AnalysisLimits & { readonly maxBodyBytes: number; readonly bodyTimeoutMs: number };
  /** Each service's request-rate limit and monthly quota, checked once the key is known. */
  readonly serviceLimits: Pick<ServiceLimits, 'admit'>;
  /** Memory for request bodies, shared by every request in flight. */
  readonly uploads: UploadBudget;
}

/** From this size on, a JSON body's parsing and its base64 decode get separate turns of the event loop. */
const LARGE_BODY_BYTES = 256 * 1024;
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const IMAGE_CONTENT_TYPE = /^image\/[\w.+-]+\s*(?:;|$)/i;
const ROUTES: readonly { path: string; version: ApiVersion }[] = [
  { path: '/api/v1/:serviceType', version: 'v1' },
  { path: '/api/:serviceType', version: 'legacy' },
];

const taskOf = (request: Request): Task => taskByType(String(request.params.serviceType))!;

const knownTask: RequestHandler = (request, _response, next) => {
  const type = String(request.params.serviceType);
  if (!taskByType(type)) throw new DetectdError('unknown_service', `no service type "${type}"; known: ${TASK_TYPES.join(', ')}`);
  next();
};

/** The query string's parameters in the order sent, repeats kept (the task refuses a repeat). */
function queryParameters(request: Request): Configuration[] {
  const query = request.originalUrl.includes('?') ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1) : '';
  return [...new URLSearchParams(query)].map(([parameter, value]) => ({ parameter, value }));
}

/** How a request body reaches its task: JSON with base64 inside, the image itself, or a form with the image file. */
type TaskRun = (task: Task, call: TaskCall) => Promise<unknown>;

/** `POST /api/v1/<task>` and `POST /api/<task>` for every task in the task table. */
export function detectionRoutes(dependencies: DetectionRouteDependencies): Router {
  const router = Router();
  const { limits, models, schemas } = dependencies;
  const bodyLimits = { maxBytes: limits.maxBodyBytes, timeoutMs: limits.bodyTimeoutMs, budget: dependencies.uploads };
  const authenticate = requireApiKey(dependencies.authenticate, (request) => String(request.params.serviceType));
  const withinLimits = enforceServiceLimits(dependencies.serviceLimits);

  /**
   * Reads the body in the form its Content-Type names (checked before a byte is read); one reader
   * bounds size, time, memory and Content-Encoding for every form. The answer is the same whichever
   * form the image came in.
   */
  const readTaskRun = async (request: Request, response: Response): Promise<TaskRun> => {
    const contentType = request.get('content-type') ?? '';
    const form = JSON_CONTENT_TYPE.test(contentType) ? 'json' : IMAGE_CONTENT_TYPE.test(contentType) ? 'image' : isMultipartForm(contentType) ? 'multipart' : undefined;
    if (!form) {
      throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8), as the image itself (Content-Type: image/jpeg, image/png, …) or as multipart/form-data with an "image" file');
    }
    const body = await readBody(request, response, bodyLimits);
    if (form === 'image') return (task, call) => task.runUpload(body, queryParameters(request), call);
    if (form === 'json') {
      let parsed: unknown;
      try {
        // Base64 JSON is ASCII: read as Latin-1, the same text without UTF-8 decoding (1.6 MB: 5 ms instead of 8).
        parsed = JSON.parse(body.toString(isAscii(body) ? 'latin1' : 'utf8'));
      } catch {
        throw new DetectdError('invalid_json', 'request body is not valid JSON');
      }
      // Parsing megabytes of JSON and decoding the image inside take up to 10 ms each on a small
      // machine: timers and other calls get a full turn of the event loop in between (a timeout,
      // unlike setImmediate, lets due timers run first). A small body is not worth the 1 ms.
      if (body.length >= LARGE_BODY_BYTES) await nextTurn();
      return (task, call) => task.runJson(parsed, call);
    }
    const { image, fields } = await readImageForm(Object.assign(Readable.from([body]), { headers: request.headers }), { maxBodyBytes: limits.maxBodyBytes });
    if (!image) throw new DetectdError('invalid_multipart', `the form has no file in the "${IMAGE_FIELD}" field`);
    return (task, call) => task.runUpload(image, fields.map(([parameter, value]) => ({ parameter, value })), call);
  };

  for (const { path, version } of ROUTES) {
    router.post(path, knownTask, authenticate, withinLimits, async (request, response) => {
      const context = contextOf(response);
      const receiveStarted = performance.now();
      const run = await readTaskRun(request, response);
      context.timings.receive = performance.now() - receiveStarted;
      const service = context.service!;
      const model = modelOfService(models, service);
      context.model = model.detector.name;
      // Admitted once the body is in: a slow upload holds no place in the model's queue.
      const signal = admitHttpCall(response, model, limits);
      response.json(await run(taskOf(request), { version, service, model, schemas, limits, signal, context }));
    });
    router.all(path, knownTask, () => {
      throw new DetectdError('method_not_allowed', 'use POST');
    });
  }
  return router;
}
