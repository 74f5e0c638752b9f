import type { Command } from 'commander';
import { loadConfig, modelSourcesOf } from '../config.js';
import type { ModelLoad } from '../models/load-models.js';
import { modelNameOf } from '../models/model-repository.js';
import { MODEL_KINDS } from '../models/model-roles.js';
import { modelsByName } from '../models/registry.js';
import { isDetector } from '../models/types.js';
import { DEEPSTACK_RESERVED_MODEL_NAMES } from '../transports/deepstack/deepstack-route-table.js';
import { asConfiguration, loadModelCode, type OutputOptions, printResult, runCommand, table } from './command-context.js';
import { EXIT } from './exit-codes.js';
import { addPullCommand } from './model-pull.js';

function modelJson(load: ModelLoad, isDefault: boolean, embedded: boolean) {
  const common = { name: modelNameOf(load.path), file: load.path, default: isDefault, embedded };
  if ('refused' in load) return { ...common, status: 'refused' as const, reason: load.refused.reason };
  const detector = load.model;
  // A model of another role (a plate reader) is run in its task's pipeline, not named by a service: no labels to show.
  if (!isDetector(detector)) return { ...common, status: 'composed' as const, role: detector.role, kind: detector.kind, family: detector.family, runtime: detector.runtime };
  return {
    ...common,
    status: 'ok' as const,
    family: detector.family,
    runtime: detector.runtime,
    input_size: detector.inputSize.width,
    labels: detector.labels,
    label_source: detector.labelSource,
    aliases: detector.aliases,
    threads: detector.settings.threads,
    concurrency: detector.settings.concurrency,
    nms_iou: detector.settings.nmsIou,
  };
}

/** Why the server would refuse the models' names and aliases together (ModelRegistry's rule), or undefined. */
function namesProblem(loads: readonly ModelLoad[]): string | undefined {
  try {
    modelsByName(
      loads.flatMap((load) => ('model' in load ? [load.model] : [])),
      DEEPSTACK_RESERVED_MODEL_NAMES,
    );
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * `detectd models list`: what the server would serve with these settings, each model loaded and
 * checked as at start-up; and `detectd models pull` (model-pull.ts).
 */
export function addModelCommands(program: Command): void {
  const models = program.command('models').description('the models this server serves (DETECTD_MODEL, the models folder), and downloading known-good ones');
  models
    .command('list')
    .description('load and check every configured model as the server would, and list them (exit 1 when one is refused)')
    .option('--json', 'print {"models": [...]}')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const { EMBEDDED_MODEL_SOURCES, tryModelFiles } = await loadModelCode();
        const config = loadConfig();
        const configured = await asConfiguration(() => tryModelFiles(modelSourcesOf(config), config.inference, false));
        // As the server does: the embedded object model first when no configured one is.
        const embedded = configured.some((load) => 'model' in load && isDetector(load.model) && load.model.kind === MODEL_KINDS.objects) ? [] : await tryModelFiles(EMBEDDED_MODEL_SOURCES, config.inference, false);
        const loads = [...embedded, ...configured];
        // The server's defaults: the first detector of each kind (object, face, plate), wherever the others sort among them.
        const defaults = new Set(Object.values(MODEL_KINDS).map((kind) => loads.findIndex((load) => 'model' in load && isDetector(load.model) && load.model.kind === kind)));
        const listed = loads.map((load, index) => modelJson(load, defaults.has(index), index < embedded.length));
        const refused = listed.flatMap((model) => (model.status === 'refused' ? [`${model.name}: ${model.reason}`] : []));
        const names = namesProblem(loads);
        const rows = listed.map((model) =>
          model.status === 'ok'
            ? [model.name + (model.default ? ' *' : '') + (model.embedded ? ' (embedded)' : ''), 'ok', model.family, String(model.input_size), `${model.labels.length} (${model.label_source})`, model.file]
            : model.status === 'composed'
              ? [model.name, `ok (${model.role} of ${model.kind})`, model.family, '-', '-', model.file]
              : [model.name + (model.default ? ' *' : ''), 'REFUSED', '-', '-', '-', model.file],
        );
        printResult(
          options,
          { models: listed, ...(names && { names_refused: names }) },
          table(['NAME', 'STATUS', 'FAMILY', 'INPUT', 'LABELS', 'FILE'], rows) + '* default model of its kind: it answers the services of that kind that name none\n' + refused.map((line) => `refused ${line}\n`).join('') + (names ? `refused: ${names}\n` : ''),
        );
        if (refused.length > 0 || names) process.exitCode = EXIT.refused;
      }),
    );
  addPullCommand(models);
}
