import { spawn } from 'node:child_process';
import fs from 'node:fs';

/**
 * Running node on jemalloc. libvips on glibc's malloc fragments: RSS grows with every large image
 * and is not given back; jemalloc returns it (sharp's documented remedy). Node cannot swap its
 * allocator after start, so a process re-runs itself in a child with LD_PRELOAD.
 */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];

/**
 * jemalloc's own thread returns freed pages to the system ~10 s after they were last used (its
 * default decay), also when the server is idle and allocates nothing. A shorter decay made every
 * request fault its buffers in afresh. Transparent huge pages (`thp:always`) are left to the
 * operator: they make fresh 12 MP buffers cheap but keep partly used 2 MiB pages resident, so RSS
 * at rest creeps (docs/performance.md has both measurements).
 */
const MALLOC_CONF = 'background_thread:true';

/** The environment that runs node on jemalloc; undefined when DETECTD_JEMALLOC=0, already preloaded, or not installed. */
export function jemallocEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined {
  if (env.DETECTD_JEMALLOC === '0' || env.LD_PRELOAD?.includes('jemalloc')) return undefined;
  const library = JEMALLOC_PATHS.find((file) => fs.existsSync(file));
  if (library === undefined) return undefined;
  // An operator's own MALLOC_CONF wins.
  return { ...env, LD_PRELOAD: [library, env.LD_PRELOAD].filter(Boolean).join(':'), MALLOC_CONF: env.MALLOC_CONF ?? MALLOC_CONF };
}

/**
 * Runs `script` with this process's node options and arguments in a child on jemalloc, passing
 * signals through and exiting as it does. False, with nothing started, when jemalloc is not to be had.
 */
export function relaunchOnJemalloc(script: string): boolean {
  const env = jemallocEnvironment(process.env);
  if (env === undefined) return false;
  const child = spawn(process.execPath, [...process.execArgv, script, ...process.argv.slice(2)], { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    // Die of the same signal as the child did.
    process.removeAllListeners(signal!);
    process.kill(process.pid, signal!);
  });
  return true;
}
