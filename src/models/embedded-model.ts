/** Name of the detector that serves when no model is configured (runtimes/tfjs/centernet.ts). */
export const EMBEDDED_MODEL_NAME = 'centernet';

/** Name of the face detector that serves when no face model is configured (runtimes/tfjs/blazeface.ts). */
export const EMBEDDED_FACE_MODEL_NAME = 'blazeface';
