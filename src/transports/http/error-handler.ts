import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { DetectdError, errorBody } from '../../core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../http-errors.js';
import { contextOf } from '../request-context.js';

/** body-parser's error types → our codes. */
export function fromBodyParser(error: { type?: string; status?: number }): DetectdError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new DetectdError('payload_too_large', 'request body exceeds the body size limit');
    case 'entity.parse.failed':
      return new DetectdError('invalid_json', 'request body is not valid JSON');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new DetectdError('unsupported_media_type', 'only UTF-8, uncompressed JSON bodies are accepted');
    case 'request.aborted':
    case 'request.size.invalid':
      return new DetectdError('invalid_request', 'request body was cut short');
    default:
      return undefined;
  }
}

export function sendError(response: Response, error: DetectdError): void {
  const context = contextOf(response);
  context.errorCode = error.code;
  response.set(httpHeadersOf(error)).status(httpStatusOf(error)).json(errorBody(error, context.requestId));
}

/** Last middleware: every failure becomes the one JSON error shape; only true bugs are 500s and logged with a stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _request, response, _next) => {
    const known = error instanceof DetectdError ? error : fromBodyParser(error as { type?: string });
    const apiError = known ?? new DetectdError('internal_error', 'internal error; quote the request id when reporting it');
    if (!known) logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendError(response, apiError);
  };
}
