import { DetectdError } from '../../core/errors.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import { runTask } from '../../tasks/run-task.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import { type ApiVersion, type Configuration, type Task, wireFindings } from '../../tasks/task.js';
import { type UploadField, uploadRequest } from './upload-request.js';

/** The fields of a task's JSON request every door reads (its request schema checked them): the image, its labels and its parameters. */
interface RestRequest {
  /** The image as base64 (a JSON body); absent in an upload, whose image came as bytes. */
  readonly raw_data?: string;
  readonly frame_id?: string;
  readonly source_id?: string;
  readonly configurations?: readonly Configuration[];
  readonly target_classes?: readonly string[];
}

/** A REST call's body as its Content-Type named it: a JSON body (parsed, not yet validated), or an image sent as bytes with its text fields (query string or form). */
export type RestBody = { readonly json: unknown } | { readonly image: Buffer; readonly fields: readonly UploadField[] };

/**
 * The JSON API's answer (schemas/<task>-response.json), in the names the Nvision clients read: the
 * service's id, the caller's frame and source labels echoed, what was found under the task's answer
 * field, and the visualized image as `raw_data` — once, never also under another name.
 */
export type RestAnswer = Readonly<Record<string, unknown>>;

/** What a REST call needs besides its body and its task. */
export interface RestCall {
  readonly version: ApiVersion;
  readonly schemas: SchemaCatalogue;
}

/** The body → the request its task's schema allows: a JSON body checked whole, an upload's fields read as the JSON body's (upload-request.ts). */
function requestOf(body: RestBody, task: Task, rest: RestCall): RestRequest {
  if ('image' in body) return uploadRequest(body.fields, task.requestSchema, rest.schemas);
  const validity = rest.schemas.check(task.requestSchema, body.json);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  return body.json as RestRequest;
}

/**
 * One REST call once the gate admitted it, the same whichever form its body took: validate →
 * parameters (a bad one is refused before megabytes of base64 are decoded) → the image (decoded
 * from base64, or as sent) → analyse → the answer, what was found under the task's answer field.
 */
export async function answerRestCall(task: Task, body: RestBody, rest: RestCall, call: AnalysisCall): Promise<RestAnswer> {
  const request = requestOf(body, task, rest);
  const parameters = task.parseParameters({ configurations: request.configurations, classes: request.target_classes }, rest.version, call.scheduler);
  const labels = { frameId: request.frame_id, sourceId: request.source_id };
  const findings = await runTask(task, 'image' in body ? body.image : request.raw_data!, parameters, { ...call, labels });
  return {
    service_id: call.service.id,
    frame_id: request.frame_id,
    source_id: request.source_id,
    [task.answerField]: wireFindings(findings),
    raw_data: findings.visualizedImage,
  };
}
