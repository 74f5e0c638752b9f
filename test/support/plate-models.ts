import path from 'node:path';
import { plateModelsFolder as folderOf } from '../../scripts/lib/plate-models-folder.js';
import { SHARED_DIR } from './paths.js';

const PLATE_MODELS = path.join(SHARED_DIR, 'models', 'plates');

/** A models folder as `detectd models pull` leaves the shared plate pair (scripts/lib/plate-models-folder.ts); the caller removes it. */
export const plateModelsFolder = () =>
  folderOf({ detector: path.join(PLATE_MODELS, 'yolo-v9-t-416-license-plates-end2end-int8.onnx'), reader: path.join(PLATE_MODELS, 'cct_xs_v2_global.onnx') });
