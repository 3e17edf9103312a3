/**
 * Loads the master keyring: SWITCHYARD_MASTER_KEYS in production, otherwise a development
 * keyring generated once into the data directory (created with an exclusive open, so an API
 * and a worker starting together agree on one keyring).
 *
 * Rotation never drops a key: `admin rotate-key` puts a new key first in the file and keeps
 * the old ones after it, and when SWITCHYARD_MASTER_KEYS is set on a data directory that
 * already has a key file, the file's keys stay in the ring after the variable's, so whatever
 * was sealed under the development key stays readable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatKeyring, generateKeyring, Keyring, parseKeyring } from '../../domain/crypto';

export const KEY_FILE = 'master-keys.txt';

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, KEY_FILE);
}

export function loadKeyring(dataDir: string, env: NodeJS.ProcessEnv = process.env): Keyring {
  if (env.SWITCHYARD_MASTER_KEYS) {
    const fromEnv = parseKeyring(env.SWITCHYARD_MASTER_KEYS);
    const file = keyFilePath(dataDir);
    return fs.existsSync(file) ? withOlderKeys(fromEnv, readKeyFile(file), file) : fromEnv;
  }
  const file = keyFilePath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    fs.writeSync(fd, formatKeyring(generateKeyring('dev1')));
    fs.closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKeyFile(file);
}

function readKeyFile(file: string): Keyring {
  for (let attempt = 0; ; attempt++) {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (text) return parseKeyring(text);
    if (attempt > 50) throw new Error(`${file} is empty`);
    // another process created the file a moment ago and is still writing it
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

/** `ring` first (its active key stays active), then the keys of `older` it does not have. */
function withOlderKeys(ring: Keyring, older: Keyring, source: string): Keyring {
  const keys = new Map(ring.keys);
  for (const [id, key] of older.keys) {
    const mine = keys.get(id);
    if (!mine) keys.set(id, key);
    else if (!mine.equals(key)) {
      // Two different keys under one id: ciphertexts naming that id could not all be opened.
      throw new Error(`key id "${id}" in SWITCHYARD_MASTER_KEYS is not the key "${id}" in ${source}: give the new key a new id`);
    }
  }
  return { activeKeyId: ring.activeKeyId, keys };
}

/**
 * Rotation of the development keyring: a new key first, every old key after it, written to a
 * temporary file and renamed so no process ever reads half a keyring. Processes pick it up
 * when they start; until then they keep sealing under the old key, which stays readable.
 */
export function rotateKeyFile(dataDir: string, newKeyId?: string): Keyring {
  const file = keyFilePath(dataDir);
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist: start the stack once (it creates the development key) or pass the right DATA_DIR`);
  const current = readKeyFile(file);
  const id = newKeyId ?? nextKeyId(current);
  if (current.keys.has(id)) throw new Error(`the keyring already has a key "${id}"; choose another --id`);
  const rotated = withOlderKeys(generateKeyring(id), current, file);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, formatKeyring(rotated), { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
  return rotated;
}

/** dev1 -> dev2 -> ...: the next free number after the highest "<letters><n>" id. */
function nextKeyId(ring: Keyring): string {
  let highest = 0;
  for (const id of ring.keys.keys()) {
    const match = /^[A-Za-z_-]*(\d+)$/.exec(id);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return `dev${highest + 1}`;
}
