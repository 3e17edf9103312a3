/**
 * Reads DATA_DIR/stack.json, the connection facts `npm start` writes for the stack it runs
 * (scripts/lib/stack-file.js writes it; the format is defined there).
 */
import fs from 'node:fs';
import path from 'node:path';

export const STACK_FILE = 'stack.json';

export interface StackFacts {
  pid: number;
  started_at?: string;
  data_dir: string;
  api_url: string;
  mongodb_uri: string;
  mongodb_uri_credentials_removed: boolean;
  mongodb_db: string;
  temporal_address: string;
  temporal_namespace: string;
  temporal_task_queue?: string;
}

export function stackFilePath(dataDir: string): string {
  return path.join(dataDir, STACK_FILE);
}

/** The facts, or null when there is no file. A file that is not such JSON is an error. */
export function readStackFile(dataDir: string): StackFacts | null {
  const file = stackFilePath(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const facts = JSON.parse(text) as StackFacts;
  if (typeof facts?.mongodb_uri !== 'string' || typeof facts.mongodb_db !== 'string') throw new Error(`${file} has no mongodb_uri / mongodb_db`);
  return facts;
}

/** Whether the process that wrote the file still runs (on this machine). */
export function writerAlive(facts: StackFacts): boolean {
  if (!Number.isInteger(facts.pid) || facts.pid <= 0) return false;
  try {
    process.kill(facts.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}
