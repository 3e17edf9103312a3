/**
 * Loads the master keyring: SWITCHYARD_MASTER_KEYS in production, otherwise a development
 * keyring generated once into the data directory (created with an exclusive open, so an API
 * and a worker starting together agree on one keyring).
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatKeyring, generateKeyring, Keyring, parseKeyring } from '../../domain/crypto';

export function loadKeyring(dataDir: string, env: NodeJS.ProcessEnv = process.env): Keyring {
  if (env.SWITCHYARD_MASTER_KEYS) return parseKeyring(env.SWITCHYARD_MASTER_KEYS);
  const file = path.join(dataDir, 'master-keys.txt');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    fs.writeSync(fd, formatKeyring(generateKeyring('dev1')));
    fs.closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (let attempt = 0; ; attempt++) {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (text) return parseKeyring(text);
    if (attempt > 50) throw new Error(`${file} is empty`);
    // another process created the file a moment ago and is still writing it
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}
