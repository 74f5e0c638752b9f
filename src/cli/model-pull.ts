import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { type CatalogueFile, type CatalogueModel, catalogueModel, MODEL_CATALOGUE } from '../models/model-catalogue.js';
import { sidecarPath } from '../models/model-description.js';
import { type OutputOptions, printResult, runCommand } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';
import { type DownloadEvents, DownloadFailed, downloadPinned, sha256Of } from './model-download.js';

interface PullOptions extends OutputOptions {
  readonly list?: boolean;
  readonly acceptLicense?: boolean;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Where a file can be downloaded from: the mirror when one is set (machines without internet), else its upstream URLs. */
function downloadUrls(file: CatalogueFile, mirror: string | undefined): string[] {
  return mirror === undefined ? [...file.urls] : [`${mirror}/${file.mirrorPath}`];
}

function catalogueJson(model: CatalogueModel) {
  return { ...model, license: model.license.id, license_url: model.license.url, license_obligation: model.license.obligation ?? null };
}

/** The catalogue for a person: one paragraph per model. */
function catalogueText(): string {
  return MODEL_CATALOGUE.map((model) =>
    [
      `${model.name}  (${model.kind}, ${megabytes(model.bytes)}, ${model.license.id}${model.urls.length === 0 ? ', from a mirror only' : ''})`,
      `  ${model.description}`,
      `  ${model.accuracy}; ${model.speed} per image on the reference machine`,
    ].join('\n'),
  ).join('\n\n');
}

/**
 * Shows the model's license before anything is downloaded. A license that asks more than keeping
 * its notice (AGPL-3.0) must be accepted: by `--accept-license`, or by answering yes at a terminal.
 */
async function agreeToLicense(model: CatalogueModel, options: PullOptions): Promise<void> {
  const { license } = model;
  if (!options.json) process.stderr.write(`${model.name}: license ${license.id} (${license.url})${license.obligation ? `\n  ${license.obligation}` : ''}\n`);
  if (!license.obligation || options.acceptLicense) return;
  const refusal = new CliFailure('license_not_accepted', `${model.name} is under ${license.id}, which was not accepted: run the command again with --accept-license to accept it`, EXIT.refused);
  if (options.json || !process.stdin.isTTY || !process.stderr.isTTY) throw refusal;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`Accept ${license.id} and download ${model.name}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw refusal;
  } finally {
    prompt.close();
  }
}

/** A progress bar on a terminal; nothing elsewhere (a log, a script), where only the result is printed. */
function downloadEvents(model: CatalogueModel, options: PullOptions): DownloadEvents & { stop(): void } {
  const bar =
    process.stderr.isTTY && !options.json
      ? new cliProgress.SingleBar({ format: `${model.name} |{bar}| {percentage}% | {received} of ${megabytes(model.bytes)}`, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic)
      : undefined;
  bar?.start(model.bytes, 0, { received: megabytes(0) });
  return {
    progress: (received) => bar?.update(received, { received: megabytes(received) }),
    retrying(reason, delayMs, resumeFrom) {
      if (options.json) return;
      const then = resumeFrom > 0 ? `resuming from byte ${resumeFrom}` : 'from the start';
      process.stderr.write(`\ndetectd: ${reason}; trying again in ${delayMs / 1000} s, ${then}\n`);
    },
    stop: () => bar?.stop(),
  };
}

/** Whether `file` already holds `pinned`'s bytes (then there is nothing to do); a different file of that name is refused, never overwritten. */
async function alreadyThere(file: string, pinned: CatalogueFile, model: CatalogueModel): Promise<boolean> {
  if (!fs.existsSync(file)) return false;
  const hash = await sha256Of(file);
  if (hash === pinned.sha256) return true;
  throw new CliFailure('file_exists', `${file} exists and is not the catalogue's ${model.name} (its sha256 is ${hash}): move it away, then pull again`, EXIT.refused);
}

/** Downloads one pinned file of the model into `file`; nothing is kept when it fails. */
async function download(pinned: CatalogueFile, file: string, model: CatalogueModel, urls: string[], options: PullOptions): Promise<string> {
  const events = downloadEvents(model, options);
  try {
    return (await downloadPinned({ urls, sha256: pinned.sha256, bytes: pinned.bytes }, file, events)).url;
  } catch (error) {
    if (!(error instanceof DownloadFailed)) throw error;
    throw new CliFailure('download_failed', `${model.name} was not downloaded, and nothing was kept: ${error.message}`, EXIT.refused);
  } finally {
    events.stop();
  }
}

/** The files the model's family reads beside it that are not there yet, downloaded, and its configuration unless one is there (their names in the result). */
async function pullCompanions(model: CatalogueModel, folder: string, mirror: string | undefined, options: PullOptions): Promise<string[]> {
  const pulled: string[] = [];
  if (model.configuration) {
    const file = sidecarPath(path.join(folder, `${model.name}.onnx`));
    // An operator's own configuration of the model stays as it is.
    const written = await fsPromises.writeFile(file, `${JSON.stringify(model.configuration, null, 2)}\n`, { flag: 'wx' }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
    if (written) pulled.push(file);
  }
  for (const companion of model.companions ?? []) {
    const file = path.join(folder, companion.file);
    if (await alreadyThere(file, companion, model)) continue;
    await download(companion, file, model, downloadUrls(companion, mirror), options);
    pulled.push(file);
  }
  return pulled;
}

async function pull(config: Config, name: string, options: PullOptions): Promise<void> {
  const model = catalogueModel(name);
  if (!model) {
    throw new CliFailure(
      'unknown_model',
      `the catalogue has no model named "${name}"; it has: ${MODEL_CATALOGUE.map((entry) => entry.name).join(', ')} (\`detectd models pull --list\` describes them)`,
      EXIT.refused,
    );
  }
  const folder = config.modelsDir.path;
  const file = path.join(folder, `${model.name}.onnx`);
  const result = { model: model.name, kind: model.kind, file, sha256: model.sha256, bytes: model.bytes, license: model.license.id };
  if (await alreadyThere(file, model, model)) {
    const companions = await pullCompanions(model, folder, config.modelsMirror, options);
    printResult(options, { ...result, downloaded: false, companions }, `${model.name} is already in ${folder} (sha256 verified)${companions.length > 0 ? `; downloaded beside it: ${companions.join(', ')}` : ''}`);
    return;
  }
  const urls = downloadUrls(model, config.modelsMirror);
  if (urls.length === 0) {
    throw new CliFailure('no_download', `${model.name} has no verified public download: set DETECTD_MODELS_MIRROR to the base URL of a mirror that holds it as ${model.mirrorPath} (docs/models.md)`, EXIT.refused);
  }
  await agreeToLicense(model, options);
  await fsPromises.mkdir(folder, { recursive: true });
  // The files read beside the model first: a server never finds the model without them.
  const companions = await pullCompanions(model, folder, config.modelsMirror, options);
  // A failed download leaves nothing behind: neither the model nor what this pull put beside it.
  const url = await download(model, file, model, urls, options).catch(async (error: unknown) => {
    await Promise.all(companions.map((companion) => fsPromises.rm(companion, { force: true })));
    throw error;
  });
  printResult(
    options,
    { ...result, downloaded: true, url, companions },
    `${model.name} downloaded from ${url} into ${file} (sha256 verified)${companions.length > 0 ? `, with ${companions.join(', ')}` : ''}. A server whose models folder this is serves it from its next start ` +
      `(\`detectd models list\` checks it); services name it "${model.name}".`,
  );
}

/** `detectd models pull <name>` and `detectd models pull --list`: known-good models into the models folder (docs/models.md). */
export function addPullCommand(models: Command): void {
  models
    .command('pull [name]')
    .description('download a known-good model into the models folder (DETECTD_MODELS_DIR, default ./models), verified by its sha256; --list shows the catalogue')
    .option('--list', 'print the catalogue: every model with its license, accuracy and speed')
    .option('--accept-license', 'accept a license that asks more than keeping its notice (AGPL-3.0), without asking')
    .option('--json', 'print one JSON object')
    .action((name: string | undefined, options: PullOptions) =>
      runCommand(options, async () => {
        if (options.list) {
          printResult(options, { models: MODEL_CATALOGUE.map(catalogueJson) }, catalogueText());
          return;
        }
        if (name === undefined) throw new CliFailure('usage', 'name a model to pull, or give --list to see the catalogue', EXIT.usage);
        await pull(loadConfig(), name, options);
      }),
    );
}
