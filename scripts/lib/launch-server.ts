/**
 * Starts a throwaway detectd from this checkout for the eval and bench scripts:
 * compile, make an account and a service (API key) in a fresh data directory,
 * run `dist/src/main.js` on a free local port and wait for /readyz.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_PATH = path.join(REPO_ROOT, 'dist/src/cli.js');
const MAIN_PATH = path.join(REPO_ROOT, 'dist/src/main.js');
const ACCOUNT_EMAIL = 'eval@example.com';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const OUTPUT_TAIL_CHARS = 16_000;

export interface LaunchOptions {
  /** ONNX model file served as DETECTD_MODEL; the service's embedded default when absent. */
  model?: string;
  /** Extra server settings (e.g. DETECTD_INFERENCE_THREADS), applied over the defaults here. */
  env?: Record<string, string>;
}

export interface LaunchedServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  apiKey: string;
  /** SIGTERM the server, wait for it to exit and delete its data directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Runs `tsc -p tsconfig.json` so dist/ matches the sources being measured. */
export async function buildService(): Promise<void> {
  try {
    await execFileAsync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const output = error as { stdout?: string; stderr?: string };
    throw new Error(`build failed (npx tsc -p tsconfig.json):\n${output.stdout ?? ''}${output.stderr ?? ''}`);
  }
}

export async function launchServer(options: LaunchOptions = {}): Promise<LaunchedServer> {
  await buildService();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'detectd-eval-'));
  const env = serverEnv(dataDir, options);
  try {
    await runCli(['account', 'create', '--email', ACCOUNT_EMAIL, '--password', randomBytes(18).toString('base64url')], env);
    const apiKey = parseApiKey(await runCli(['service', 'create', '--account', ACCOUNT_EMAIL, '--name', 'eval', '--json'], env));
    const port = await findFreePort();
    return await startServer({ ...env, PORT: String(port) }, `http://127.0.0.1:${port}`, apiKey, dataDir);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The caller's environment minus any DETECTD_* settings (so a developer's shell cannot point the
 * throwaway server at a real database), local-only binding, quiet logs, then the caller's overrides.
 */
function serverEnv(dataDir: string, options: LaunchOptions): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DETECTD_')));
  return {
    ...inherited,
    HOST: '127.0.0.1',
    DETECTD_LOG_LEVEL: 'warn',
    ...options.env,
    DETECTD_DATA_DIR: dataDir,
    // The CLI sees the model too, in case a new service records the default model.
    ...(options.model ? { DETECTD_MODEL: path.resolve(options.model) } : {}),
  };
}

async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, env });
    return stdout;
  } catch (error) {
    const output = error as { stdout?: string; stderr?: string };
    throw new Error(`detectd ${args[0]} ${args[1]} failed:\n${output.stderr ?? ''}${output.stdout ?? ''}`);
  }
}

function parseApiKey(stdout: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`detectd service create --json printed no JSON:\n${stdout}`);
  }
  const apiKey = (parsed as { api_key?: unknown } | null)?.api_key;
  if (typeof apiKey !== 'string') throw new Error(`detectd service create --json printed no api_key:\n${stdout}`);
  return apiKey;
}

/** Binds port 0 to let the OS pick a free port, then releases it for the server. */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(env: NodeJS.ProcessEnv, url: string, apiKey: string, dataDir: string): Promise<LaunchedServer> {
  const child = spawn(process.execPath, [MAIN_PATH], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Both streams must be drained or the server blocks on a full pipe; the tail explains a crash.
  let outputTail = '';
  const keepTail = (chunk: Buffer): void => {
    outputTail = (outputTail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on('data', keepTail);
  child.stderr.on('data', keepTail);

  let exitStatus: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitStatus = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
    child.once('error', (error) => {
      exitStatus = error.message;
      resolve();
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', onExit);
      if (exitStatus === undefined) {
        child.kill('SIGTERM');
        const killTimer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(killTimer);
      }
      await rm(dataDir, { recursive: true, force: true });
    })());
  // Ctrl-C or a kill of this script must not leave the server running.
  const onSignal = (signal: NodeJS.Signals): void => {
    void stop().finally(() => process.exit(128 + (os.constants.signals[signal] ?? 0)));
  };
  const onExit = (): void => {
    child.kill('SIGTERM');
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', onExit);

  try {
    await waitUntilReady(url, () => exitStatus, () => outputTail);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, apiKey, stop };
}

async function waitUntilReady(url: string, exitStatus: () => string | undefined, outputTail: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const status = exitStatus();
    if (status !== undefined) throw new Error(`detectd exited (${status}) before it was ready; its output:\n${outputTail()}`);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new Error(`detectd was not ready within ${READY_TIMEOUT_MS / 1000} s; its output:\n${outputTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
