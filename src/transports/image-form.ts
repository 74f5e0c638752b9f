import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { DetectdError } from '../core/errors.js';

/** The one file field of an image upload form, in detectd's API and DeepStack's alike. */
export const IMAGE_FIELD = 'image';

/** One file of a form, with the name of its field. */
export interface FormFile {
  readonly field: string;
  readonly bytes: Buffer;
}

/** A parsed `multipart/form-data` image upload. */
export interface ImageForm {
  /** The file of the `image` field; undefined when the form carried none. */
  readonly image: Buffer | undefined;
  /** Every file in the order sent (only `image`'s unless `files` allows more). */
  readonly files: readonly FormFile[];
  /** Text fields in the order sent, repeats kept, so that a repeated parameter can be refused. */
  readonly fields: readonly (readonly [name: string, value: string])[];
}

export interface ImageFormOptions {
  /** The body limit (`DETECTD_MAX_BODY_BYTES`): the same for every form of upload. */
  readonly maxBodyBytes: number;
  /**
   * Called once the image part begins, with the fields sent before it, before any of the image
   * is read: a caller whose key is in such a field is refused without reading the image.
   */
  readonly beforeImage?: (fieldsSoFar: ImageForm['fields']) => Promise<void>;
  /**
   * Files in any field, up to this many (DeepStack's face registration sends `image1`, `image2`,
   * …; its match `image1` and `image2`); absent: one file, in the `image` field.
   */
  readonly files?: number;
  /** Where the route reads its file (CodeProject.AI ALPR's `upload`), named when a form sends too many. */
  readonly fileField?: string;
}

/** Forms carry a few short parameters beside the file; anything more is not a client of ours. */
const FIELD_LIMITS = { fields: 32, fieldSize: 4096, parts: 33, fieldNameSize: 100 };

const malformed = (message: string) => new DetectdError('invalid_multipart', message);
/** busboy's own complaint (bad framing, a form cut short) in our terms. */
const malformedBody = (error: Error) => malformed(`malformed multipart body: ${error.message}`);

/** A request, or a body already read whole, with the request's headers. */
export type FormSource = Readable & { readonly headers: IncomingHttpHeaders; readonly complete?: boolean };

/**
 * Reads a `multipart/form-data` body with busboy (streaming): at most one file, in the `image`
 * field (or `files` files in any fields), of at most `maxBodyBytes` together, and a few short text
 * fields. A URL-encoded body is read too, as fields only. Failures are DetectdErrors:
 * `invalid_multipart` for a form that breaks the rules, `payload_too_large` past the body limit.
 * On failure the rest of the body is read and discarded unparsed.
 */
export function readImageForm(request: FormSource, options: ImageFormOptions): Promise<ImageForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { ...FIELD_LIMITS, files: options.files ?? 1, fileSize: options.maxBodyBytes } });
    } catch (error) {
      reject(malformed(`not a multipart/form-data body: ${(error as Error).message}`));
      return;
    }
    const fields: [string, string][] = [];
    const files: Promise<FormFile>[] = [];
    let received = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      parser.removeAllListeners();
      // Errors after this one (a part cut short by the unpipe) have nowhere to go.
      parser.on('error', () => undefined);
      // The rest of the body is discarded unparsed (as Node does with any body left unread), so
      // that a client still sending reads the answer instead of a reset connection; the server's
      // request timeout bounds how long that may take.
      request.off('data', count);
      request.resume();
      reject(error);
    };
    // The file limit alone would let a form of many fields or a long preamble through.
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.maxBodyBytes) fail(new DetectdError('payload_too_large', `request body exceeds the body size limit (${options.maxBodyBytes} bytes)`));
    };
    request.on('data', count);

    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) fail(malformed(`field "${name.slice(0, 100)}" is longer than ${FIELD_LIMITS.fieldSize} bytes`));
      else fields.push([name, value]);
    });
    parser.on('file', (name, stream) => {
      if (options.files === undefined && name !== IMAGE_FIELD) {
        stream.resume();
        fail(malformed(`the file must be sent in the "${IMAGE_FIELD}" field, not "${name}"`));
        return;
      }
      // Busboy fails the file stream at once when the form is cut short, maybe before the loop below reads it.
      stream.on('error', (error) => fail(malformedBody(error)));
      const first = files.length === 0;
      const file = (async (): Promise<FormFile> => {
        if (first) await options.beforeImage?.([...fields]);
        const chunks: Buffer[] = [];
        try {
          for await (const chunk of stream) chunks.push(chunk as Buffer);
        } catch (error) {
          throw malformedBody(error as Error);
        }
        if (stream.truncated) throw new DetectdError('payload_too_large', `the image exceeds the body size limit (${options.maxBodyBytes} bytes)`);
        return { field: name, bytes: Buffer.concat(chunks) };
      })();
      files.push(file);
      file.catch(fail);
    });
    parser.on('filesLimit', () => fail(malformed(options.files === undefined ? `send one file only, in the "${IMAGE_FIELD}" field` : `send at most ${options.files === 1 ? '1 file' : `${options.files} files`}${options.fileField ? `, in the "${options.fileField}" field` : ''}`)));
    parser.on('fieldsLimit', () => fail(malformed(`too many fields (at most ${FIELD_LIMITS.fields})`)));
    parser.on('partsLimit', () => fail(malformed(`too many parts (at most ${FIELD_LIMITS.parts})`)));
    parser.on('error', (error: Error) => fail(malformedBody(error)));
    parser.on('close', () => {
      if (settled) return;
      Promise.all(files).then((read) => {
        if (settled) return;
        settled = true;
        request.off('data', count);
        resolve({ image: read.find((file) => file.field === IMAGE_FIELD)?.bytes, files: read, fields });
      }, fail);
    });
    // The gate's bounded reader fails its stream with the reason (413, 408, 503, a bad encoding).
    request.once('error', fail);
    request.on('close', () => {
      // A request knows whether all of its body came; a body read whole beforehand has no such flag and is complete.
      if (request.complete === false) fail(new DetectdError('invalid_request', 'request body was cut short'));
    });
    request.pipe(parser);
  });
}

/** `multipart/form-data` (any parameters): the one media type readImageForm reads. */
export function isMultipartForm(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*(?:;|$)/i.test(contentType ?? '');
}
