import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { DetectdError, errorBody } from '../../core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../http-errors.js';
import { contextOf } from '../request-context.js';
import { closeAfterEarlyAnswer } from './http-server.js';

/** A failure the client caused, as our error; undefined for a bug. Express's router throws a URIError for a path parameter with a bad percent-escape. */
export function clientFailureOf(error: unknown): DetectdError | undefined {
  if (error instanceof DetectdError) return error;
  if (error instanceof URIError) return new DetectdError('invalid_path', 'the URL path has a malformed percent-escape');
  return undefined;
}

export function sendError(response: Response, error: DetectdError): void {
  const context = contextOf(response);
  context.errorCode = error.code;
  closeAfterEarlyAnswer(response.req, response);
  response.set(httpHeadersOf(error)).status(httpStatusOf(error)).json(errorBody(error, context.requestId));
}

/** Last middleware: every failure becomes the one JSON error shape; only true bugs are 500s and logged with a stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _request, response, _next) => {
    const known = clientFailureOf(error);
    const apiError = known ?? new DetectdError('internal_error', 'internal error; quote the request id when reporting it');
    if (!known) logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendError(response, apiError);
  };
}
