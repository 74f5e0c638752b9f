import type { RequestHandler } from 'express';
import { DetectdError } from '../core/errors.js';
import { readBody } from '../gate/bounded-body.js';
import type { UploadBudget } from '../gate/upload-budget.js';

const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
/** The console's largest form (sign-up, service settings) is far below both. */
const MAX_FORM_BYTES = 16 * 1024;
const MAX_FORM_FIELDS = 20;

/**
 * Reads a posted console form into `request.body` (field → last value) through the server's one
 * body reader: same deadline, compressed bodies, `Expect: 100-continue`; too many fields is 413.
 */
export function formBody(bodyTimeoutMs: number, uploads: UploadBudget): RequestHandler {
  return async (request, response, next) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !FORM_CONTENT_TYPE.test(request.get('content-type') ?? '')) return next();
    const bytes = await readBody(request, response, { maxBytes: MAX_FORM_BYTES, timeoutMs: bodyTimeoutMs, budget: uploads });
    const fields = [...new URLSearchParams(bytes.toString('utf8'))];
    if (fields.length > MAX_FORM_FIELDS) throw new DetectdError('payload_too_large', `A console form has at most ${MAX_FORM_FIELDS} fields.`);
    // fromEntries defines own properties: a field named "__proto__" is just a field.
    request.body = Object.fromEntries(fields);
    next();
  };
}
