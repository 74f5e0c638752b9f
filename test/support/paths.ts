import path from 'node:path';

/** Shared data beside the checkout (CI puts ../shared there); overridable for other layouts. */
export const SHARED_DIR = path.resolve(process.env.DETECTD_SHARED_DIR ?? '../shared');
export const MODELS_DIR = path.resolve(process.env.DETECTD_TEST_MODELS ?? path.join(SHARED_DIR, 'models'));
export const PHOTOS_DIR = path.join(SHARED_DIR, 'eval', 'photos');

export const modelPath = (name: string) => path.join(MODELS_DIR, `${name}.onnx`);
export const photoPath = (name: string) => path.join(PHOTOS_DIR, name);

/** The model most tests use: the fastest accurate one. */
export const DEFAULT_TEST_MODEL = modelPath('yolo26n-640-int8');
