/**
 * Loads the master keyring: SWITCHYARD_MASTER_KEYS in production, otherwise a development
 * keyring generated once into the data directory (created with an exclusive open, so an API
 * and a worker starting together agree on one keyring). The directory is created 0700 and
 * the keyring file is 0600.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatKeyring, generateKeyring, Keyring, parseKeyring } from '../../domain/crypto';

export function loadKeyring(dataDir: string, env: NodeJS.ProcessEnv = process.env): Keyring {
  if (env.SWITCHYARD_MASTER_KEYS) return parseKeyring(env.SWITCHYARD_MASTER_KEYS);
  const file = path.join(dataDir, 'master-keys.txt');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    fs.writeSync(fd, formatKeyring(generateKeyring('dev1')));
    fs.closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A keyring written by an older version (or copied in) may be readable by others.
    if (fs.statSync(file).mode & 0o077) fs.chmodSync(file, 0o600);
  }
  for (let attempt = 0; ; attempt++) {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (text) return parseKeyring(text);
    if (attempt > 50) throw new Error(`${file} is empty`);
    // another process created the file a moment ago and is still writing it
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}
