/**
 * Switchyard processes of their own (node dist/api/server.js, dist/activities/worker.js)
 * against the test infrastructure, for tests that kill them or run several at once.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const DIST = path.resolve(__dirname, '..', '..');

export interface SpawnedProcess {
  child: ChildProcess;
  /** Resolves once the process exited. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export function launch(script: string, env: Record<string, string>, ready: (line: string) => boolean): Promise<{ process: SpawnedProcess; line: string }> {
  const child = spawn(process.execPath, [path.join(DIST, script)], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const lines = seen.split('\n');
      seen = lines.pop() ?? '';
      for (const line of lines) {
        if (ready(line)) {
          child.stdout!.off('data', onData);
          // Keep draining its log; SWITCHYARD_CHILD_LOGS=<dir> keeps it for debugging.
          if (process.env.SWITCHYARD_CHILD_LOGS) child.stdout!.pipe(fs.createWriteStream(path.join(process.env.SWITCHYARD_CHILD_LOGS, `${path.basename(script, '.js')}-${child.pid}.log`)));
          else child.stdout!.resume();
          resolve({ process: { child, exited, stop }, line });
          return;
        }
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

/** A worker polling `taskQueue`; ready once it logs that it runs (bundling takes seconds). */
export async function spawnWorker(taskQueue: string, env: Record<string, string> = {}): Promise<SpawnedProcess> {
  const { process } = await launch('activities/worker.js', { TEMPORAL_TASK_QUEUE: taskQueue, ...env }, (line) => line.includes('Switchyard worker running'));
  return process;
}

/** Any of our servers that logs a JSON line with `msg` and `url` once it listens (PORT=0: a free port). */
export async function spawnServer(script: string, readyMessage: string, env: Record<string, string> = {}): Promise<SpawnedProcess & { url: string }> {
  const { process, line } = await launch(script, env, (l) => l.includes(readyMessage));
  return { ...process, url: (JSON.parse(line) as { url: string }).url };
}

/** An API process on a free port starting work on `taskQueue`; resolves with its URL. */
export async function spawnApi(taskQueue: string, env: Record<string, string> = {}): Promise<SpawnedProcess & { url: string }> {
  const { process, line } = await launch('api/server.js', { TEMPORAL_TASK_QUEUE: taskQueue, PORT: '0', HOST: '127.0.0.1', ...env }, (l) => l.includes('Switchyard API listening'));
  return { ...process, url: (JSON.parse(line) as { url: string }).url };
}
