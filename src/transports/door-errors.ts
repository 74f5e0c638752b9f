import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError } from '../core/errors.js';
import { closeAfterEarlyAnswer } from './early-answer.js';
import { clientFailureOf, httpHeadersOf } from './http-errors.js';
import { contextOf } from './request-context.js';

/** A door's wire form of a failure, given the catalogue's status of its code: its status and body. */
type DoorFailure = (error: DetectdError, status: number) => { readonly status: number; readonly body: unknown };

/**
 * A front door's own error answers (as Hono's sub-application `onError`): a failure of a request
 * `belongs` says is the door's is answered in the door's wire form (`failure`), recorded under its
 * code, and the connection closed when the body was not read; a bug is logged and answered as
 * `internal_error` with `internalMessage`. Failures of other requests pass on.
 */
export function doorErrors(belongs: (request: Request) => boolean, failure: DoorFailure, errors: ErrorCatalogue, logger: Logger, internalMessage: string): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    if (!belongs(request)) {
      next(error);
      return;
    }
    const known = clientFailureOf(error) ?? new DetectdError('internal_error', internalMessage);
    if (known.code === 'internal_error') logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const { status, body } = failure(known, errors.status(known.code));
    contextOf(response).errorCode = known.code;
    closeAfterEarlyAnswer(request, response);
    response.set(httpHeadersOf(known)).status(status).json(body);
  };
}
