#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { relaunchOnJemalloc } from './jemalloc.js';

/**
 * `npm start`: runs the server (main.js) on jemalloc when the system has it (jemalloc.ts), else
 * in this process on the system allocator. DETECTD_JEMALLOC=0 opts out.
 */
const main = fileURLToPath(new URL('./main.js', import.meta.url));
if (!relaunchOnJemalloc(main)) await import(main);
