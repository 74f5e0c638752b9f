import { isAscii } from 'node:buffer';
import { Readable } from 'node:stream';
import { setTimeout as nextTurn } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError } from '../../core/errors.js';
import type { Gate, Passed } from '../../gate/gate.js';
import type { Task } from '../../tasks/task.js';
import { setRateLimitHeaders } from '../rate-limit-headers.js';
import { contextOf } from '../request-context.js';
import { IMAGE_FIELD, isMultipartForm, readImageForm } from '../image-form.js';
import type { RestBody } from './rest-call.js';
import type { UploadField } from './upload-request.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';

/** From this size on, a JSON body's parsing and its base64 decode get separate turns of the event loop. */
const LARGE_BODY_BYTES = 256 * 1024;
export const JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
/** The image itself: `image/…`, or `application/octet-stream`, what clients send for bytes they do not type (curl --data-binary with -H, many HTTP libraries). */
const IMAGE_CONTENT_TYPE = /^(?:image\/[\w.+-]+|application\/octet-stream)\s*(?:;|$)/i;

/** The query string's fields in the order sent, repeats kept (a repeated parameter is refused). */
function queryFields(request: Request): UploadField[] {
  const query = request.originalUrl.includes('?') ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1) : '';
  return [...new URLSearchParams(query)];
}

type BodyForm = 'json' | 'image' | 'multipart';

/** The form of the body its Content-Type names, checked before a byte of it is read. */
function bodyFormOf(request: Request): BodyForm {
  const contentType = request.get('content-type') ?? '';
  const form = JSON_CONTENT_TYPE.test(contentType) ? 'json' : IMAGE_CONTENT_TYPE.test(contentType) ? 'image' : isMultipartForm(contentType) ? 'multipart' : undefined;
  if (!form) {
    throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json (UTF-8), as the image itself (Content-Type: image/jpeg, image/png, … or application/octet-stream) or as multipart/form-data with an "image" file');
  }
  return form;
}

/** A JSON body as sent, or 400 `invalid_json`. */
function parsedJson(body: Buffer): unknown {
  try {
    // Base64 JSON is ASCII: read as Latin-1, the same text without UTF-8 decoding (faster; docs/performance.md).
    return JSON.parse(body.toString(isAscii(body) ? 'latin1' : 'utf8'));
  } catch {
    throw new DetectdError('invalid_json', 'request body is not valid JSON');
  }
}

/** A JSON body valid against the named schema of `schemas`, or 400 `invalid_json` / `invalid_request` saying what is wrong. */
export function checkedJson(body: Buffer, schemas: SchemaCatalogue, schema: string): unknown {
  const parsed = parsedJson(body);
  const validity = schemas.check(schema, parsed);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  return parsed;
}

/** The body, read by the gate, in the form its Content-Type names (rest-call.ts answers the same whichever form the image came in). */
async function restBodyOf(request: Request, form: BodyForm, body: Buffer, maxBodyBytes: number): Promise<RestBody> {
  if (form === 'image') return { image: body, fields: queryFields(request) };
  if (form === 'json') {
    const parsed = parsedJson(body);
    // Parsing megabytes of JSON and decoding the image inside each take milliseconds on a small
    // machine: timers and other calls get a full turn of the event loop in between (a timeout,
    // unlike setImmediate, lets due timers run first). A small body is not worth the turn's cost.
    if (body.length >= LARGE_BODY_BYTES) await nextTurn();
    return { json: parsed };
  }
  const { image, fields } = await readImageForm(Object.assign(Readable.from([body]), { headers: request.headers }), { maxBodyBytes });
  if (!image) throw new DetectdError('invalid_multipart', `the form has no file in the "${IMAGE_FIELD}" field`);
  return { image, fields };
}

/**
 * A REST call with an image through the gate's lifecycle: the key from `Authorization`, the RateLimit
 * headers and the Content-Type checked once the caller is counted (before a byte of the body is
 * read), then the body in the form its Content-Type names.
 */
export function passRestCall(gate: Gate, request: Request, response: Response, task: Task, maxBodyBytes: number): Promise<Passed<RestBody>> {
  let form: BodyForm;
  return gate.pass(request, response, contextOf(response), {
    task,
    credentials: { apiKey: apiKeyFromAuthorization(request.get('authorization')) },
    counted: (caller) => {
      setRateLimitHeaders(response, caller.standings);
      form = bodyFormOf(request);
    },
    body: { whole: (received) => restBodyOf(request, form, received, maxBodyBytes) },
  });
}
