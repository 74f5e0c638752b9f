import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ApiError, errorBody } from '../../core/errors.js';
import { contextOf } from './request-context.js';

/** body-parser's error types → our codes. */
export function fromBodyParser(error: { type?: string; status?: number }): ApiError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'request body exceeds the body size limit');
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'request body is not valid JSON');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 'only UTF-8, uncompressed JSON bodies are accepted');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('invalid_request', 'request body was cut short');
    default:
      return undefined;
  }
}

export function sendError(response: Response, error: ApiError): void {
  const context = contextOf(response);
  context.errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.status(error.status).json(errorBody(error, context.requestId));
}

/** Last middleware: every failure becomes the one JSON error shape; only true bugs are 500s and logged with a stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _request, response, _next) => {
    const known = error instanceof ApiError ? error : fromBodyParser(error as { type?: string });
    const apiError = known ?? new ApiError('internal_error', 'internal error; quote the request id when reporting it');
    if (!known) logger.error({ request_id: contextOf(response).requestId, err: error }, 'unhandled error');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendError(response, apiError);
  };
}
