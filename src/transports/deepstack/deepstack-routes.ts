import { type ErrorRequestHandler, type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError } from '../../core/errors.js';
import { collectBody } from '../../gate/bounded-body.js';
import type { Gate } from '../../gate/gate.js';
import type { TaskTable } from '../../tasks/task-table.js';
import type { DeepStackRoute, Task } from '../../tasks/task.js';
import { clientFailureOf, httpHeadersOf } from '../http-errors.js';
import { type ImageForm, isMultipartForm, readImageForm } from '../image-form.js';
import { setRateLimitHeaders } from '../rate-limit-headers.js';
import { contextOf } from '../request-context.js';
import { DEEPSTACK_MIN_CONFIDENCE, deepStackFailure, deepStackSuccess } from './deepstack-wire.js';

export interface DeepStackDependencies {
  readonly gate: Gate;
  /** Each task with a DeepStack side answers its routes (Task.deepStack). */
  readonly tasks: TaskTable;
  /** The body limit, for the multipart parser's own count. */
  readonly maxBodyBytes: number;
  readonly logger: Logger;
}

/** The first non-empty `api_key` field (DeepStack's own way of sending the key). */
const fieldKey = (fields: ImageForm['fields']) => fields.find(([name, value]) => name === 'api_key' && value !== '')?.[1];

/** `min_confidence` as DeepStack reads it: a float as text, at most 1; absent: 0.4. */
function minConfidence(fields: ImageForm['fields']): number {
  const text = fields.find(([name]) => name === 'min_confidence')?.[1];
  if (text === undefined || text.trim() === '') return DEEPSTACK_MIN_CONFIDENCE;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new DetectdError('invalid_configuration', 'Invalid value for min_confidence');
  if (value > 1) throw new DetectdError('invalid_configuration', 'min_confidence cannot be greater than 1');
  return value;
}

const NO_FORM: ImageForm = { image: undefined, fields: [] };

/**
 * DeepStack's and CodeProject.AI Server's routes, so that the software written for them (Blue
 * Iris, Agent DVR, Home Assistant's deepstack integrations, Frigate's `deepstack` detector) works
 * unchanged: each task's routes (object detection: `POST /v1/vision/detection` with the service's
 * model, `POST /v1/vision/custom/<model>` with a loaded model by name), a multipart form with an
 * `image` file, `min_confidence` and `api_key`. Every call passes the gate: the key in
 * `Authorization` is checked before the body is read; a key in the form, or none at all (a service
 * that accepts keyless calls from the caller's address), once the gate's bounded reader has it.
 */
export function deepStackRoutes(dependencies: DeepStackDependencies): Router {
  const { gate, tasks, maxBodyBytes, logger } = dependencies;
  const router = Router();

  const answer = (task: Task, route: DeepStackRoute): RequestHandler => async (request, response) => {
    const context = contextOf(response);
    const multipart = isMultipartForm(request.get('content-type'));
    const pass = await gate.passHttpWithBodyCredentials(
      request,
      response,
      context,
      {
        task,
        head: { apiKey: apiKeyFromAuthorization(request.get('authorization')), keylessAddress: request.ip ?? '' },
        modelName: request.params.model === undefined ? undefined : String(request.params.model),
        counted: (standings) => setRateLimitHeaders(response, standings),
      },
      async (body, letIn): Promise<ImageForm> => {
        // A key in a field sent ahead of the image (as DeepStack's clients send it) is checked before the image is read.
        const beforeImage = async (fields: ImageForm['fields']) => {
          const key = fieldKey(fields);
          if (key) await letIn({ apiKey: key });
        };
        const form = multipart ? await readImageForm(Object.assign(body, { headers: request.headers }), { maxBodyBytes, beforeImage }) : (await collectBody(body), NO_FORM);
        await letIn({ apiKey: fieldKey(form.fields) });
        return form;
      },
    );
    const form = pass.body;
    if (!form.image) throw new DetectdError('invalid_multipart', 'No valid image file found');
    const found = await task.deepStack!.analyse(form.image, minConfidence(form.fields), pass.taskCall('v1'));
    response.json(deepStackSuccess(found, { command: route.command, timings: context.timings, startedAt: context.startedAt }));
  };

  const paths: string[] = [];
  for (const task of tasks.all) {
    for (const route of task.deepStack?.routes ?? []) {
      // One registration per path: the metrics label a request by its route's pattern.
      router.post(route.path, answer(task, route));
      router.all(route.path, () => {
        throw new DetectdError('method_not_allowed', 'use POST');
      });
      paths.push(route.path);
    }
  }

  // Errors of these routes only (a failure of an earlier front door passes through here too, and on): in DeepStack's shape, `{"success": false, "error": …}`.
  const deepStackErrors: ErrorRequestHandler = (error: unknown, request, response, next) => {
    if (!paths.includes(String(request.route?.path))) {
      next(error);
      return;
    }
    const known = clientFailureOf(error) ?? new DetectdError('internal_error', 'internal error; quote the X-Request-Id header when reporting it');
    if (known.code === 'internal_error') logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const { status, body } = deepStackFailure(known);
    contextOf(response).errorCode = known.code;
    response.set(httpHeadersOf(known)).status(status).json(body);
  };
  router.use(deepStackErrors);
  return router;
}
