import fs from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import type { PlateReading } from '../../plates.js';
import type { RawOutput } from '../../types.js';
import { tensorNamed } from '../tensors.js';

/** The family's name, as a reader's configuration (`<model>.json` "family") names it. */
export const PLATE_READER_FAMILY = 'fast-plate-ocr';

/** A plate reader's own configuration (fast-plate-ocr's `<model>_plate_config.yaml`): what its outputs mean. */
export interface PlateReaderConfig {
  /** Character slots the model reads (its `plate` output's second dimension). */
  readonly slots: number;
  /** The character of each class of a slot, in output order. */
  readonly alphabet: string;
  /** The character that fills the slots after the plate's last one. */
  readonly padChar: string;
  /** The crop size the model reads, pixels. */
  readonly width: number;
  readonly height: number;
  /** The country or region of each class of the `region` output, where the model has one. */
  readonly regions?: readonly string[];
}

/** fast-plate-ocr names its configuration after the model: `cct_xs_v2_global.onnx` → `cct_xs_v2_global_plate_config.yaml`. */
export function plateConfigPath(modelPath: string): string {
  return path.join(path.dirname(modelPath), `${path.basename(modelPath, path.extname(modelPath))}_plate_config.yaml`);
}

/** Reads and checks the reader's configuration; every reason it cannot be served is thrown in words naming the file. */
export async function readPlateReaderConfig(modelPath: string): Promise<PlateReaderConfig> {
  const file = plateConfigPath(modelPath);
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? `a plate reader needs its configuration beside it: ${file} does not exist (fast-plate-ocr publishes it with the model)` : `${file}: ${error.message}`);
  });
  const raw = parse(text) as Record<string, unknown> | null;
  const problem = (what: string) => new Error(`${file}: ${what}`);
  if (raw === null || typeof raw !== 'object') throw problem('expected a YAML mapping');
  const { max_plate_slots: slots, alphabet, pad_char: padChar, img_width: width, img_height: height, plate_regions: regions } = raw;
  if (!Number.isInteger(slots) || (slots as number) < 1) throw problem('max_plate_slots must be a positive integer');
  if (typeof alphabet !== 'string' || alphabet.length < 2) throw problem('alphabet must be a string of the characters the model reads');
  if (typeof padChar !== 'string' || padChar.length !== 1 || !alphabet.includes(padChar)) throw problem('pad_char must be one character of the alphabet');
  if (!Number.isInteger(width) || !Number.isInteger(height)) throw problem('img_width and img_height must be integers');
  // The crop is stretched over the input in colour (vision/crops.ts): a model configured otherwise would read garbage.
  if (raw.keep_aspect_ratio === true) throw problem('keep_aspect_ratio: true is not supported (crops are stretched over the input)');
  if (raw.image_color_mode !== undefined && raw.image_color_mode !== 'rgb') throw problem(`image_color_mode ${String(raw.image_color_mode)} is not supported (rgb only)`);
  if (regions !== undefined && !(Array.isArray(regions) && regions.every((region) => typeof region === 'string'))) throw problem('plate_regions must be a list of names');
  return { slots: slots as number, alphabet, padChar, width: width as number, height: height as number, regions: regions as string[] | undefined };
}

/** The name the model gives a region it cannot tell. */
const UNKNOWN_REGION = 'Unknown';

/**
 * fast-plate-ocr's outputs → one reading per crop: `plate` [B, slots, alphabet] probabilities
 * (already softmaxed) give each slot's most likely character, pad characters dropped; `region`
 * [B, regions] (v2 models), where the configuration names its classes, the country guess.
 */
export function readPlateOutputs(output: RawOutput, count: number, config: PlateReaderConfig): PlateReading[] {
  const plate = tensorNamed(output, 'plate');
  const classes = config.alphabet.length;
  if (plate.dims.length !== 3 || plate.dims[0] !== count || plate.dims[1] !== config.slots || plate.dims[2] !== classes) {
    throw new Error(`the reader's plate output is [${plate.dims.join(', ')}], its configuration says [${count}, ${config.slots}, ${classes}]`);
  }
  const region = config.regions && output.tensors.find((tensor) => tensor.name === 'region');
  if (region && config.regions && (region.dims.length !== 2 || region.dims[1] !== config.regions.length)) {
    throw new Error(`the reader's region output is [${region.dims.join(', ')}], its configuration names ${config.regions.length} regions`);
  }
  const readings: PlateReading[] = [];
  for (let n = 0; n < count; n++) {
    let text = '';
    const characterConfidences: number[] = [];
    for (let slot = 0; slot < config.slots; slot++) {
      const at = (n * config.slots + slot) * classes;
      let best = 0;
      for (let k = 1; k < classes; k++) if (plate.data[at + k] > plate.data[at + best]) best = k;
      if (config.alphabet[best] === config.padChar) continue;
      text += config.alphabet[best];
      characterConfidences.push(plate.data[at + best]);
    }
    const confidence = characterConfidences.length > 0 ? characterConfidences.reduce((sum, p) => sum + p, 0) / characterConfidences.length : 0;
    readings.push({ text, characterConfidences, confidence, ...(region && config.regions && regionGuess(region.data, n, config.regions)) });
  }
  return readings;
}

function regionGuess(data: Float32Array, n: number, regions: readonly string[]): Pick<PlateReading, 'region'> {
  let best = 0;
  const at = n * regions.length;
  for (let k = 1; k < regions.length; k++) if (data[at + k] > data[at + best]) best = k;
  return regions[best] === UNKNOWN_REGION ? {} : { region: { name: regions[best], confidence: data[at + best] } };
}
