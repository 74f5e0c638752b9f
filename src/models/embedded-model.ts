/** Name of the detector that serves when no model is configured (runtimes/tfjs/centernet.ts). */
export const EMBEDDED_MODEL_NAME = 'centernet';
