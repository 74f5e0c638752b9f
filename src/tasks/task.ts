import type { Service } from '../core/service.js';
import type { CallContext } from '../core/call-context.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';

/** Versions of the public API: `v1` (`/api/v1/<task>`, current) and `legacy` (`/api/<task>`). */
export type ApiVersion = 'v1' | 'legacy';

/** One configuration parameter of a task: the single row behind validation, defaults and docs. */
export interface ParameterRule {
  readonly versions: readonly ApiVersion[];
  readonly defaultValue: string;
  /** What a valid value looks like, in words for error messages and docs. */
  readonly allowed: string;
  readonly description: string;
}

/** What a task's run needs besides the request: the same for every transport. */
export interface TaskCall {
  readonly version: ApiVersion;
  readonly service: Service;
  readonly model: ModelScheduler;
  readonly schemas: SchemaCatalogue;
  readonly limits: AnalysisLimits;
  readonly signal: AbortSignal;
  readonly context: CallContext;
}

/**
 * A service type: `object-detection` today. Routes (v1 and legacy), the OpenAPI document, the
 * docs page, the console, the CLI and the service store all read the task table (tasks/index.ts),
 * so a second task is one new folder beside object-detection/ and one line there.
 */
export interface Task {
  readonly type: string;
  /** Short phrase for docs and the console, e.g. "Detect objects in one image". */
  readonly summary: string;
  /** Names of the JSON Schemas (schemas/<name>.json) of the JSON request and response. */
  readonly requestSchema: string;
  readonly responseSchema: string;
  readonly parameters: Readonly<Record<string, ParameterRule>>;
  /**
   * A shell command calling this task at `endpoint` with the image file at `imagePath` and the key
   * in `$DETECTD_API_KEY`, pasteable on Linux and macOS: the example of the README, /docs and the console.
   */
  exampleCommand(endpoint: string, imagePath: string): string;
  /** A JSON request body (already parsed, not yet validated) → the JSON response body. */
  runJson(body: unknown, call: TaskCall): Promise<unknown>;
  /** An uploaded image (raw body or form file) and its parameters as sent (query string or form fields) → the same JSON response body. */
  runUpload(bytes: Buffer, parameters: readonly Configuration[], call: TaskCall): Promise<unknown>;
}

/** One configuration parameter as the caller sent it, before validation. */
export interface Configuration {
  readonly parameter: string;
  readonly value: string;
}

/** Names of the parameters a version of the API accepts. */
export function parameterNames(parameters: Readonly<Record<string, ParameterRule>>, version: ApiVersion): string[] {
  return Object.entries(parameters)
    .filter(([, rule]) => rule.versions.includes(version))
    .map(([name]) => name);
}
