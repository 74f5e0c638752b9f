import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ErrorCatalogue } from '../../core/error-catalogue.js';
import { DetectdError, errorBody } from '../../core/errors.js';
import { clientFailureOf, httpHeadersOf } from '../http-errors.js';
import { contextOf } from '../request-context.js';
import { closeAfterEarlyAnswer } from '../early-answer.js';

function sendError(response: Response, error: DetectdError, errors: ErrorCatalogue): void {
  const context = contextOf(response);
  context.errorCode = error.code;
  closeAfterEarlyAnswer(response.req, response);
  response.set(httpHeadersOf(error)).status(errors.status(error.code)).json(errorBody(error, context.requestId));
}

/** Last middleware: every failure becomes the one JSON error shape; only true bugs are 500s and logged with a stack. */
export function errorHandler(logger: Logger, errors: ErrorCatalogue): ErrorRequestHandler {
  return (error: unknown, _request, response, _next) => {
    const known = clientFailureOf(error);
    const apiError = known ?? new DetectdError('internal_error', 'internal error; quote the request id when reporting it');
    if (!known) logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendError(response, apiError, errors);
  };
}
