import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import type { Authenticate } from '../../accounts/authenticate.js';
import { DetectdError } from '../../core/errors.js';
import type { AnalysisLimits } from '../../core/pipeline.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { ModelSchedulers } from '../../scheduler/model-schedulers.js';
import { TASK_TYPES, taskByType } from '../../tasks/index.js';
import type { ApiVersion, Configuration, Task, TaskCall } from '../../tasks/task.js';
import { admitHttpCall } from '../admit-call.js';
import { IMAGE_FIELD, isMultipartForm, readImageForm } from '../image-form.js';
import { requireApiKey } from './api-key-auth.js';
import { contextOf } from '../request-context.js';

export interface DetectionRouteDependencies {
  readonly authenticate: Authenticate;
  readonly models: ModelSchedulers;
  readonly schemas: SchemaCatalogue;
  readonly limits: AnalysisLimits & { readonly maxBodyBytes: number };
}

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
  const parseJson = express.json({ limit: limits.maxBodyBytes, strict: false, type: () => true });
  const parseRaw = express.raw({ limit: limits.maxBodyBytes, type: () => true });
  const authenticate = requireApiKey(dependencies.authenticate, (request) => String(request.params.serviceType));

  /** Reads the body in the form its Content-Type names; the answer is the same whichever form it came in. */
  const readBody = (request: Request, response: Response): Promise<TaskRun> =>
    new Promise((resolve, reject) => {
      const contentType = request.get('content-type');
      if (JSON_CONTENT_TYPE.test(contentType ?? '')) {
        parseJson(request, response, (error?: unknown) => (error ? reject(error) : resolve((task, call) => task.runJson(request.body, call))));
      } else if (IMAGE_CONTENT_TYPE.test(contentType ?? '')) {
        parseRaw(request, response, (error?: unknown) => (error ? reject(error) : resolve((task, call) => task.runUpload(request.body as Buffer, queryParameters(request), call))));
      } else if (isMultipartForm(contentType)) {
        readImageForm(request, { maxBodyBytes: limits.maxBodyBytes }).then(({ image, fields }) => {
          if (!image) throw new DetectdError('invalid_multipart', `the form has no file in the "${IMAGE_FIELD}" field`);
          resolve((task, call) => task.runUpload(image, fields.map(([parameter, value]) => ({ parameter, value })), call));
        }).catch(reject);
      } else {
        reject(new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8), as the image itself (Content-Type: image/jpeg, image/png, …) or as multipart/form-data with an "image" file'));
      }
    });

  for (const { path, version } of ROUTES) {
    router.post(path, knownTask, authenticate, async (request, response) => {
      const context = contextOf(response);
      const receiveStarted = performance.now();
      const run = await readBody(request, response);
      context.timings.receive = performance.now() - receiveStarted;
      const service = context.service!;
      const model = models.find(service.model);
      if (!model) throw new DetectdError('model_unavailable', `this service uses model "${service.model}", which this server has not loaded`);
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
