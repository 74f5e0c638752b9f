import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHARED_DIR } from './paths.js';

const PLATE_MODELS = path.join(SHARED_DIR, 'models', 'plates');
const DETECTOR = 'yolo-v9-t-416-license-plates-end2end-int8';
const READER = 'cct_xs_v2_global';

/** A models folder as `detectd models pull` leaves it: the two plate models, each with its configuration (links to the shared files). */
export function plateModelsFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-plates-'));
  for (const file of [`${DETECTOR}.onnx`, `${READER}.onnx`, `${READER}_plate_config.yaml`]) fs.symlinkSync(path.resolve(PLATE_MODELS, file), path.join(folder, file));
  fs.writeFileSync(path.join(folder, `${DETECTOR}.json`), JSON.stringify({ kind: 'plates', family: 'yolo-plates-end2end' }));
  fs.writeFileSync(path.join(folder, `${READER}.json`), JSON.stringify({ kind: 'plate-text', family: 'fast-plate-ocr' }));
  return folder;
}

