import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { newCallContext } from '../../core/call-context.js';

const CLIENT_REQUEST_ID = /^[\w.:-]{1,64}$/;

/** Gives every request an id (the caller's X-Request-Id when it is sane) and echoes it back. */
export const requestId: RequestHandler = (request, response, next) => {
  const offered = request.get('x-request-id');
  const id = offered && CLIENT_REQUEST_ID.test(offered) ? offered : crypto.randomUUID();
  response.locals.call = newCallContext(id);
  response.setHeader('X-Request-Id', id);
  next();
};
