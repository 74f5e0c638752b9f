import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config.js';
import { type CatalogueFile, type CatalogueModel, catalogueModel, MODEL_CATALOGUE } from '../models/model-catalogue.js';
import { sidecarPath } from '../models/model-repository.js';
import { type OutputOptions, printResult, runCommand } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';
import { type DownloadEvents, DownloadFailed, downloadPinned, sha256Of } from './model-download.js';
import { differingOutputs, SAMPLE_PHOTO } from './same-outputs.js';

interface PullOptions extends OutputOptions {
  readonly list?: boolean;
  readonly acceptLicense?: boolean;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The host of the catalogue's upstream URLs, which DETECTD_MODELS_RAW_URL can stand another in for. */
const GITHUB_RAW = 'https://raw.githubusercontent.com/';

/** Where a file can be downloaded from: the mirror when one is set (machines without internet), else its upstream URLs. */
function downloadUrls(file: CatalogueFile, config: Config): string[] {
  if (config.modelsMirror !== undefined) return [`${config.modelsMirror}/${file.mirrorPath}`];
  const rawUrl = config.modelsRawUrl;
  return file.urls.map((url) => (rawUrl !== undefined && url.startsWith(GITHUB_RAW) ? `${rawUrl}/${url.slice(GITHUB_RAW.length)}` : url));
}

/** What a failed download adds when no mirror was used: how a machine without internet gets the models. */
const MIRROR_HINT =
  'without internet, set DETECTD_MODELS_MIRROR to the base URL of a mirror of the catalogue\'s files (docs/models.md, "Without internet: a mirror")';

function catalogueJson(model: CatalogueModel) {
  return { ...model, license: model.license.id, license_url: model.license.url, license_obligation: model.license.obligation ?? null };
}

/** The catalogue for a person: one paragraph per model. */
function catalogueText(): string {
  return MODEL_CATALOGUE.map((model) =>
    [
      `${model.name}  (${model.kind}, ${megabytes(model.bytes)}, ${model.license.id}${model.derivedFrom ? ', made from its upstream int8 file on download' : ''})`,
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
function downloadEvents(model: CatalogueModel, bytes: number, options: PullOptions): DownloadEvents & { stop(): void } {
  const bar =
    process.stderr.isTTY && !options.json
      ? new cliProgress.SingleBar({ format: `${model.name} |{bar}| {percentage}% | {received} of ${megabytes(bytes)}`, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic)
      : undefined;
  bar?.start(bytes, 0, { received: megabytes(0) });
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
async function download(pinned: CatalogueFile, file: string, model: CatalogueModel, config: Config, options: PullOptions): Promise<string> {
  const events = downloadEvents(model, pinned.bytes, options);
  try {
    return (await downloadPinned({ urls: downloadUrls(pinned, config), sha256: pinned.sha256, bytes: pinned.bytes }, file, events)).url;
  } catch (error) {
    if (!(error instanceof DownloadFailed)) throw error;
    const hint = config.modelsMirror === undefined ? `; ${MIRROR_HINT}` : '';
    throw new CliFailure('download_failed', `${model.name} was not downloaded, and nothing was kept: ${error.message}${hint}`, EXIT.refused);
  } finally {
    events.stop();
  }
}

/**
 * Makes `model` into `file` from the upstream file it is derived from: downloaded and verified,
 * its int8 weights re-encoded as uint8, the result kept only when it has the model's pinned
 * sha256 and gives the upstream file's outputs on the sample photo. Returns the upstream URL.
 */
async function derive(model: CatalogueModel, source: CatalogueFile, file: string, config: Config, options: PullOptions): Promise<string> {
  const upstream = `${file}.${process.pid}.upstream`;
  const derived = `${file}.${process.pid}.derived`;
  try {
    const url = await download(source, upstream, model, config, options);
    // protobufjs is loaded only to derive a model: every `detectd` command loads this module.
    const { uint8Weights } = await import('./uint8-weights.js');
    await fsPromises.writeFile(derived, uint8Weights(await fsPromises.readFile(upstream)));
    const refuse = (why: string) => new CliFailure('derivation_refused', `${model.name} was made from ${url}, but ${why}: refused, and nothing was kept`, EXIT.refused);
    const sha256 = await sha256Of(derived);
    if (sha256 !== model.sha256) throw refuse(`the result's sha256 is ${sha256}, not the pinned ${model.sha256}`);
    const difference = await differingOutputs(upstream, derived);
    if (difference !== undefined) throw refuse(`on ${SAMPLE_PHOTO} its ${difference}`);
    await fsPromises.rename(derived, file);
    return url;
  } finally {
    await Promise.all([upstream, derived].map((leftover) => fsPromises.rm(leftover, { force: true })));
  }
}

/** The files the model's family reads beside it that are not there yet, downloaded, and its configuration unless one is there (their names in the result). */
async function pullCompanions(model: CatalogueModel, folder: string, config: Config, options: PullOptions): Promise<string[]> {
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
    await download(companion, file, model, config, options);
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
    const companions = await pullCompanions(model, folder, config, options);
    printResult(options, { ...result, downloaded: false, companions }, `${model.name} is already in ${folder} (sha256 verified)${companions.length > 0 ? `; downloaded beside it: ${companions.join(', ')}` : ''}`);
    return;
  }
  await agreeToLicense(model, options);
  await fsPromises.mkdir(folder, { recursive: true });
  // The files read beside the model first: a server never finds the model without them.
  const companions = await pullCompanions(model, folder, config, options);
  // Derived where no upstream serves the model's own bytes, unless a mirror holds them.
  const source = config.modelsMirror === undefined && model.urls.length === 0 ? model.derivedFrom : undefined;
  // A failed download leaves nothing behind: neither the model nor what this pull put beside it.
  const url = await (source ? derive(model, source, file, config, options) : download(model, file, model, config, options)).catch(async (error: unknown) => {
    await Promise.all(companions.map((companion) => fsPromises.rm(companion, { force: true })));
    throw error;
  });
  const how = source
    ? `made from ${url} into ${file} (its int8 weights re-encoded as uint8; sha256 verified, outputs identical to the upstream file's on ${path.basename(SAMPLE_PHOTO)})`
    : `downloaded from ${url} into ${file} (sha256 verified)`;
  printResult(
    options,
    { ...result, downloaded: true, url, derived: source !== undefined, companions },
    `${model.name} ${how}${companions.length > 0 ? `, with ${companions.join(', ')}` : ''}. A server whose models folder this is serves it from its next start ` +
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
