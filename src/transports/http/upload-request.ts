import { DetectdError } from '../../core/errors.js';
import type { JsonSchema, SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { Configuration } from '../../tasks/task.js';

/**
 * An upload's request: the task's JSON request body without `raw_data` (the image came as bytes),
 * each field checked against the task's request schema.
 */
export type UploadRequest = Readonly<Record<string, unknown>>;

/** One text field of an upload as sent: a form field, or a query-string pair beside a raw image. */
export type UploadField = readonly [name: string, value: string];

/** A top-level field of a task's JSON request that an upload may send by the same name. */
export interface UploadBodyField {
  readonly name: string;
  /** An array of strings: sent as repeated fields or comma-separated values. */
  readonly list: boolean;
  readonly description: string;
}

/**
 * The JSON request's fields an upload does not send by name: the image (the form's file or the body
 * itself), and `configurations`, which every other field name becomes.
 */
const NOT_UPLOAD_FIELDS = new Set(['raw_data', 'configurations']);

/** The fields of a task's request schema (e.g. `target_classes`, `frame_id`) an upload sends by name. */
export function uploadBodyFields(schema: JsonSchema): UploadBodyField[] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string; description?: string }>;
  return Object.entries(properties)
    .filter(([name]) => !NOT_UPLOAD_FIELDS.has(name))
    .map(([name, property]) => ({ name, list: property.type === 'array', description: property.description ?? '' }));
}

/**
 * An upload's fields → its request, so that every parameter works in every body form: a field the
 * task's request schema names at top level (`target_classes`, `frame_id`, …) is that field (a list
 * from repeated fields and comma-separated values, e.g. `target_classes=dog,truck`; an empty one is
 * absent), and any other is a configuration parameter, which the task checks as it checks a JSON
 * body's. 400 `invalid_request` for a field the schema refuses, or a single-valued one sent twice.
 */
export function uploadRequest(fields: readonly UploadField[], schemaName: string, schemas: SchemaCatalogue): UploadRequest {
  const schema = schemas.schemas.get(schemaName);
  if (!schema) throw new Error(`no schema named ${schemaName}`);
  const bodyFields = new Map(uploadBodyFields(schema).map((field) => [field.name, field]));
  const request: Record<string, unknown> = {};
  const configurations: Configuration[] = [];
  for (const [name, value] of fields) {
    if (NOT_UPLOAD_FIELDS.has(name)) {
      throw new DetectdError('invalid_request', `"${name}" belongs in a JSON body; in an upload the image is the file or the body itself, and each parameter is a field of its own`);
    }
    const field = bodyFields.get(name);
    if (!field) configurations.push({ parameter: name, value });
    else if (field.list) request[name] = [...((request[name] as string[] | undefined) ?? []), ...value.split(',').map((item) => item.trim()).filter((item) => item !== '')];
    else if (Object.hasOwn(request, name)) throw new DetectdError('invalid_request', `field "${name}" is given more than once`);
    // A form sends a field left blank as empty: absent, as in the JSON body it stands for.
    else if (value !== '') request[name] = value;
  }
  if (configurations.length > 0) request.configurations = configurations;
  for (const [name, value] of Object.entries(request)) {
    const validity = schemas.checkProperty(schemaName, name, value);
    if (!validity.ok) throw new DetectdError(name === 'configurations' ? 'invalid_configuration' : 'invalid_request', validity.problem);
  }
  return request;
}
