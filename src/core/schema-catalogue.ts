import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../package-root.js';

export type JsonSchema = Record<string, unknown>;

/**
 * Every schema under `schemas/`, and those the tasks bring (Task.schemas), read and checked against
 * JSON Schema's meta-schema at start-up (a malformed schema stops start-up); the server compiles the
 * ones detection calls check at start-up (`prepare`), the rest when first used: compiling all of them
 * cost a server's start a quarter of a CPU second, for schemas most servers never use
 * (test/schema-catalogue.test.ts compiles every one). They are the single truth for
 * request validation and the OpenAPI document; each is named by its `$id` without `.json`.
 */
export class SchemaCatalogue {
  readonly schemas: ReadonlyMap<string, JsonSchema>;
  readonly #ajv = new Ajv2020({ allErrors: false, strict: true });

  constructor(directory: string = path.join(packageRoot(), 'schemas'), more: readonly JsonSchema[] = []) {
    const entries = [
      ...fs
        .readdirSync(directory)
        .filter((file) => file.endsWith('.json'))
        .sort()
        .map((file) => [path.basename(file, '.json'), JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8')) as JsonSchema] as const),
      ...more.map((schema) => [path.basename(String(schema.$id), '.json'), schema] as const),
    ];
    this.schemas = new Map(entries);
    for (const [, schema] of entries) this.#ajv.addSchema(schema);
  }

  /** The named schema's validator, compiled on its first use (ajv keeps it). */
  #validator(name: string, pointer = ''): ValidateFunction {
    const id = this.schemas.get(name)?.$id;
    if (typeof id !== 'string') throw new Error(`no schema named ${name}`);
    const validate = this.#ajv.getSchema(id + pointer);
    if (!validate) throw new Error(`schema ${name} has no ${pointer}`);
    return validate;
  }

  /** Compiles the named schemas now (at start-up: those every call of a kind checks), so that no first call pays their compilation. */
  prepare(names: readonly string[]): void {
    for (const name of names) this.#validator(name);
  }

  /** Validates `value` against the named schema; on failure returns one readable sentence. */
  check(name: string, value: unknown): { ok: true } | { ok: false; problem: string } {
    const validate = this.#validator(name);
    if (validate(value)) return { ok: true };
    return { ok: false, problem: describeProblem(validate.errors?.[0]) };
  }

  /** Throws unless the response schema declares `answerField` as a list of findings (objects): checked for every task at start-up. */
  declaresAnswer(responseSchema: string, answerField: string): void {
    const list = this.#resolved(responseSchema, (this.schemas.get(responseSchema)?.properties as Record<string, JsonSchema> | undefined)?.[answerField]);
    const items = list && this.#resolved(responseSchema, list.items as JsonSchema | undefined);
    if (list?.type !== 'array' || items?.type !== 'object') throw new Error(`schema ${responseSchema} must declare "${answerField}" as an array of objects: the task's findings`);
  }

  /** A subschema with its `$ref`s followed (`file.json#/pointer`, or `#/pointer` within `within`). */
  #resolved(within: string, node: JsonSchema | undefined): JsonSchema | undefined {
    let current = node;
    let schema = within;
    for (let hops = 0; typeof current?.$ref === 'string' && hops < 8; hops += 1) {
      const [file, pointer = ''] = current.$ref.split('#');
      if (file !== '') schema = path.basename(file, '.json');
      const base = this.schemas.get(schema);
      current = pointer.split('/').slice(1).reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], base) as JsonSchema | undefined;
    }
    return current;
  }

  /**
   * Validates `value` against one top-level property of the named schema (a field that came
   * without the rest of its body, e.g. an upload's form field); a problem names the field.
   */
  checkProperty(name: string, property: string, value: unknown): { ok: true } | { ok: false; problem: string } {
    const validate = this.#validator(name, `#/properties/${property}`);
    if (validate(value)) return { ok: true };
    const error = validate.errors?.[0];
    return { ok: false, problem: describeProblem(error && { ...error, instancePath: `/${property}${error.instancePath}` }) };
  }
}

function describeProblem(error: ErrorObject | undefined): string {
  if (!error) return 'request does not match the schema';
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : 'body';
  switch (error.keyword) {
    case 'required':
      return `${where === 'body' ? '' : where + ': '}missing required field "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'additionalProperties':
      return `${where}: unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}
