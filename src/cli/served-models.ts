import { type Config, modelSourcesOf } from '../config.js';
import type { Service } from '../core/service.js';
import { modelNotLoaded, type ServiceWithoutModel } from '../services-without-model.js';
import type { TaskTable } from '../tasks/task-table.js';
import { DEEPSTACK_RESERVED_MODEL_NAMES } from '../transports/deepstack/deepstack-route-table.js';
import { isModelRole } from '../models/model-roles.js';
import { serves } from '../models/model-step.js';
import { asConfiguration, loadModelCode, type OutputOptions, type ServedModel } from './command-context.js';

/** Where the server these settings describe answers on this machine (a wildcard address is reached on loopback). */
export function localServerUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** How long the CLI waits for the local server's model list. */
const SERVER_ANSWER_MS = 2000;

/** The models the detectd server at `readiness` (its /readyz) serves, or undefined when none answers there. */
async function answeringServerModels(readiness: string): Promise<ServedModel[] | undefined> {
  try {
    const answer = (await (await fetch(readiness, { signal: AbortSignal.timeout(SERVER_ANSWER_MS) })).json()) as { model_kinds?: unknown; model_roles?: Record<string, unknown> };
    const kinds = answer.model_kinds;
    if (typeof kinds !== 'object' || kinds === null) return undefined;
    const roleOf = (name: string) => answer.model_roles?.[name];
    return Object.entries(kinds).flatMap(([name, kind]) => {
      const role = roleOf(name) ?? 'detector';
      return typeof kind === 'string' && isModelRole(role) ? [{ name, role, kind }] : [];
    });
  } catch {
    return undefined; // No server here, or not detectd.
  }
}

/**
 * The models a service may name, as the server would serve them: with models configured in this
 * shell (DETECTD_MODEL, or model files in the models folder), those, loaded and checked as the
 * server does, with the embedded ones it adds; with none configured here (a shell beside the
 * server's, as in the README's First detection), those the server on this machine lists at
 * /readyz; with no server either, the embedded models a server started with these settings would
 * serve, which standard error says. Settings the server would refuse are a configuration failure.
 */
export async function servedModels(config: Config, tasks: TaskTable, output: OutputOptions): Promise<ServedModel[]> {
  const { loadModels, modelFiles } = await loadModelCode();
  const sources = modelSourcesOf(config);
  const configured = await asConfiguration(() => modelFiles(sources));
  const readiness = `${localServerUrl(config)}/readyz`;
  const answered = configured.length === 0 ? await answeringServerModels(readiness) : undefined;
  if (answered) return answered;
  const models = await asConfiguration(async () => {
    // The models a service may name lead its task (TaskTable.modelsFor): the built-in models the tasks compose are loaded too.
    // Loaded to be checked and disposed, never run: one inference worker per model checks a file as well as several.
    const checking = { ...config.inference, concurrency: 1 };
    const registry = await loadModels(sources, checking, () => {}, DEEPSTACK_RESERVED_MODEL_NAMES, tasks.leads);
    await registry.dispose();
    return registry.models.map(({ name, role, kind }) => ({ name, role, kind }));
  });
  if (configured.length === 0 && !output.json) {
    process.stderr.write(
      `detectd: no server answers at ${readiness}, and this shell configures no model (DETECTD_MODEL, or a model file in ${sources.modelsDir!.path}): ` +
        `checked against the models a server started with these settings serves: ${models.map((model) => model.name).join(', ')}\n`,
    );
  }
  return models;
}

/**
 * What `service` (new, naming no model) lacks on the server on this machine, when one answers there and
 * loads no model of its kind; undefined otherwise. No server answering says nothing: that server warns
 * at its start (docs/models.md).
 */
export async function lackingOnLocalServer(config: Config, tasks: TaskTable, service: Service): Promise<ServiceWithoutModel | undefined> {
  const models = await answeringServerModels(`${localServerUrl(config)}/readyz`);
  if (!models) return undefined;
  return modelNotLoaded(service, tasks, {
    find: (name) => models.find((model) => model.name === name),
    defaultOf: (step) => models.find((model) => serves(model, step)),
  });
}
