#!/usr/bin/env node
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `npm start`: runs the server (main.js) with jemalloc as the allocator when the system has it.
 * libvips on glibc's malloc fragments: RSS grows with every large image and is not given back;
 * jemalloc returns it (sharp's documented remedy). Node cannot swap its allocator after start, so
 * the server runs in a child process with LD_PRELOAD, signals passed through.
 * DETECTD_JEMALLOC=0 runs the server in this process on the system allocator.
 */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];

const main = fileURLToPath(new URL('./main.js', import.meta.url));
const jemalloc = process.env.DETECTD_JEMALLOC === '0' || process.env.LD_PRELOAD?.includes('jemalloc') ? undefined : JEMALLOC_PATHS.find((file) => fs.existsSync(file));

if (jemalloc === undefined) {
  await import(main);
} else {
  const preload = [jemalloc, process.env.LD_PRELOAD].filter(Boolean).join(':');
  // Freed pages go back to the system within a second, from jemalloc's own thread, rather than after
  // its 10 s default: a 36 MP image's buffers should not outlive its request. MALLOC_CONF set by the
  // operator wins.
  const mallocConf = process.env.MALLOC_CONF ?? 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0';
  const child = spawn(process.execPath, [...process.execArgv, main, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, LD_PRELOAD: preload, MALLOC_CONF: mallocConf } });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    // Die of the same signal as the server did.
    process.removeAllListeners(signal!);
    process.kill(process.pid, signal!);
  });
}
