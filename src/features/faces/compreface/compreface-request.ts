import { Readable } from 'node:stream';
import type { Request } from 'express';
import { DetectdError } from '../../../core/errors.js';
import { decodeRawData } from '../../../core/raw-data.js';
import type { SchemaCatalogue } from '../../../core/schema-catalogue.js';
import { isMultipartForm, readImageForm } from '../../../transports/image-form.js';
import { CompreFaceRefusal } from './compreface-errors.js';

const JSON_CONTENT_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * The query string as sent: CompreFace's parameters (`limit`, `det_prob_threshold`, `subject`, …);
 * of a repeated one the first counts, as Spring reads it. A `?` inside it separates parameters as
 * `&` does: CompreFace's JavaScript SDK joins the options it adds after the first with `?` when it
 * sends no `limit` (`faces?subject=amy?det_prob_threshold=0.8`), which meant one mangled parameter
 * to CompreFace. A `?` meant inside a value comes percent-encoded.
 */
export function queryOf(request: Request): URLSearchParams {
  const at = request.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : request.originalUrl.slice(at + 1).replaceAll('?', '&'));
}

/** A whole-number parameter from `least` up; `fallback` when absent or empty. */
export function wholeParameter(query: URLSearchParams, name: string, fallback: number, least: number): number {
  const text = query.get(name)?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < least || value > Number.MAX_SAFE_INTEGER) throw new CompreFaceRefusal('incorrectArgument', 'invalid_configuration', `${name} must be a whole number from ${least}`);
  return value;
}

/** `det_prob_threshold`: a number from 0 to 1; `fallback` when absent or empty. */
export function thresholdParameter(query: URLSearchParams, fallback: number): number {
  const text = query.get('det_prob_threshold')?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new CompreFaceRefusal('incorrectArgument', 'invalid_configuration', 'det_prob_threshold must be a number from 0.0 to 1.0');
  return value;
}

/** A boolean parameter (`status`): `true` or `false` in any case; false when absent or empty. */
export function booleanParameter(query: URLSearchParams, name: string): boolean {
  const text = query.get(name)?.trim().toLowerCase();
  if (!text) return false;
  if (text !== 'true' && text !== 'false') throw new CompreFaceRefusal('incorrectArgument', 'invalid_configuration', `${name} must be true or false`);
  return text === 'true';
}

/** The subject a route names in its query: required (CompreFace's 400 code 33 when absent), or undefined where optional. */
export function subjectParameter(query: URLSearchParams, required: true): string;
export function subjectParameter(query: URLSearchParams, required: false): string | undefined;
export function subjectParameter(query: URLSearchParams, required: boolean): string | undefined {
  const subject = query.get('subject') ?? undefined;
  if (required && (subject === undefined || subject.trim() === '')) {
    throw new CompreFaceRefusal('missingRequestParameter', 'missing_field', "Required request parameter 'subject' for method parameter type String is not present");
  }
  return subject === undefined || subject.trim() === '' ? undefined : subject;
}

/**
 * The images of a body, by field (`file`; verification's `source_image` and `target_image`): a
 * multipart form's files of those fields, or a JSON object of base64 strings in those properties
 * (CompreFace's "Base64 support"), checked against `schema`. A field missing is CompreFace's 400
 * code 34; a body of another type, 415.
 */
export async function imagesOf(request: Request, body: Buffer, fields: readonly string[], options: { readonly maxBodyBytes: number; readonly schemas: SchemaCatalogue; readonly schema: string }): Promise<ReadonlyMap<string, Buffer>> {
  const contentType = request.get('content-type');
  const images = new Map<string, Buffer>();
  if (isMultipartForm(contentType)) {
    const form = await readImageForm(Object.assign(Readable.from([body]), { headers: request.headers }), { maxBodyBytes: options.maxBodyBytes, files: fields.length });
    for (const file of form.files) if (fields.includes(file.field) && !images.has(file.field)) images.set(file.field, file.bytes);
  } else if (JSON_CONTENT_TYPE.test(contentType ?? '')) {
    const sent = jsonOf(body, options.schemas, options.schema) as Record<string, string>;
    for (const field of fields) if (sent[field] !== undefined) images.set(field, base64Image(sent[field], field));
  } else {
    throw new DetectdError('unsupported_media_type', `send the image as multipart/form-data (${fields.map((field) => `"${field}"`).join(', ')}) or as application/json with base64 in ${fields.length === 1 ? 'that property' : 'those properties'}`);
  }
  const missing = fields.find((field) => !images.has(field));
  if (missing) throw new CompreFaceRefusal('missingRequestPart', 'invalid_multipart', `Required request part '${missing}' is not present`);
  return images;
}

/** A JSON body valid against `schema`: CompreFace's 400 code 26 saying what is wrong. */
export function jsonOf(body: Buffer, schemas: SchemaCatalogue, schema: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DetectdError('invalid_json', 'request body is not valid JSON');
  }
  const validity = schemas.check(schema, parsed);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  return parsed;
}

function base64Image(text: string, field: string): Buffer {
  try {
    return decodeRawData(text);
  } catch (error) {
    if (error instanceof DetectdError) throw new DetectdError('invalid_base64', `"${field}" is not base64: ${error.message.replace(/^raw_data /, '')}`);
    throw error;
  }
}
