import { createRequire } from 'node:module';
import type * as TfjsCore from '@tensorflow/tfjs-core';
import type * as TfjsWasm from '@tensorflow/tfjs-backend-wasm';

/**
 * TF.js, as every TF.js model here reaches it. Both packages are CommonJS bundles: imported as ES
 * modules, Node first scans each for its export names and checks its syntax, a tenth of a CPU second
 * in every worker thread that loads a TF.js model (docs/development.md "What makes the suite slow");
 * required, it only runs them. Types come from the packages themselves (`import type`).
 */
const require = createRequire(import.meta.url);

export const tf = require('@tensorflow/tfjs-core') as typeof TfjsCore;
/** Requiring the wasm backend registers it with tfjs-core (the same copy: both are required). */
export const { setWasmPaths } = require('@tensorflow/tfjs-backend-wasm') as typeof TfjsWasm;
