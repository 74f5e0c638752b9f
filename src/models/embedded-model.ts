import path from 'node:path';
import { packageRoot } from '../package-root.js';

/**
 * The object model that serves when none is configured: YOLOX-nano, committed with its license,
 * source and sha256 in assets/models/ (README there). ONNX Runtime serves it like any configured
 * model file; its configuration file beside it gives it the alias `centernet`, the name of the
 * embedded model it replaced, so that services stored with that name keep working.
 */
export const EMBEDDED_MODEL_FILE = path.join(packageRoot(), 'assets', 'models', 'yolox-nano-416.onnx');

/** The face detector that serves when no face model is configured: YuNet-n, committed with its license and configuration (assets/models/README.md). */
export const EMBEDDED_FACE_MODEL_PATH = path.join(packageRoot(), 'assets', 'models', 'yunet-n.onnx');
