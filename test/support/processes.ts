import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { TEST_INFERENCE_SETTINGS } from './inference-settings.js';

export const CLI = path.resolve('dist/src/cli.js');
export const MAIN = path.resolve('dist/src/main.js');

/** Fails clearly when the build these process tests run is missing. */
export function requireBuild(): void {
  if (!fs.existsSync(MAIN)) throw new Error('dist/ is missing: npm test builds it (tsc) before mocha runs');
}

let emptyModelsFolder: string | undefined;

/**
 * The environment of a server or command a test starts: the tests' inference settings unless `env` sets its own, and,
 * where `env` names model files (DETECTD_MODEL) and no models folder, an empty models folder of this test process,
 * so that the checkout's `./models`, where a person's `detectd models pull` puts models, joins no test's models.
 */
export function processEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env.DETECTD_MODEL?.trim() || env.DETECTD_MODELS_DIR?.trim()) return { ...TEST_INFERENCE_SETTINGS, ...env };
  if (emptyModelsFolder === undefined) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-test-models-'));
    process.once('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
    emptyModelsFolder = folder;
  }
  return { ...TEST_INFERENCE_SETTINGS, DETECTD_MODELS_DIR: emptyModelsFolder, ...env };
}

/** Runs `node dist/src/cli.js ARGS` to completion, in the environment `processEnv` gives `env`. */
export function cli(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  return spawnSync(process.execPath, [CLI, ...args], { env: processEnv(env), input, encoding: 'utf8' });
}

/** `result` when the command exited 0; else an error naming the command, its exit status and its standard error, so that a test reading its output says why there is none. */
function succeeded<Result extends { status: number | null; stderr: string }>(args: readonly string[], result: Result): Result {
  if (result.status !== 0) throw new Error(`detectd ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result;
}

/** `cli`, for a command that must succeed: its failure is the test's, with the command's standard error. */
export function cliOk(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  return succeeded(args, cli(args, env, input));
}

/**
 * Runs `node dist/src/cli.js ARGS` (in the folder `cwd`, else this one) as `cli` does, without blocking
 * this process: for a CLI that calls a server running in this same process (spawnSync would hold its event loop).
 */
export function cliAsync(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: processEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** `cliAsync`, for a command that must succeed: its failure is the test's, with the command's standard error. */
export async function cliAsyncOk(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  return succeeded(args, await cliAsync(args, env, cwd));
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every line it wrote, stdout and stderr. */
  readonly output: string[];
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the service (`node dist/src/main.js`, what `npm start` runs, unless told otherwise; in the folder `cwd`, else
 * this one) in the environment `processEnv` gives `env`, and resolves once it logs its URL.
 */
export async function startProcess(env: NodeJS.ProcessEnv, command: readonly string[] = [process.execPath, MAIN], cwd?: string): Promise<ServerProcess> {
  // Its own process group, so that stopping it reaches every process under it (npm → sh → node).
  const child = spawn(command[0], command.slice(1), { env: processEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const lines = readline.createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output.join('')}`)));
    lines.on('line', (line) => {
      output.push(line + '\n');
      if (!line.startsWith('{')) return; // npm's own banner lines
      const entry = JSON.parse(line) as { msg: string; url?: string };
      if (entry.msg === 'listening') resolve(entry.url!);
    });
  });
  return {
    child,
    url,
    output,
    async stop() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}
