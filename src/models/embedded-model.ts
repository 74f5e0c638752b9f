import path from 'node:path';
import { packageRoot } from '../package-root.js';

/** Name of the detector that serves when no model is configured (runtimes/tfjs/centernet.ts). */
export const EMBEDDED_MODEL_NAME = 'centernet';

/** The face detector that serves when no face model is configured: YuNet-n, committed with its license and configuration (assets/models/README.md). */
export const EMBEDDED_FACE_MODEL_PATH = path.join(packageRoot(), 'assets', 'models', 'yunet-n.onnx');
