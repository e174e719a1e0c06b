/**
 * The backend probes' outcomes kept per model and device (ort.ts): the key is the SHA-256 of the model bytes a
 * session runs and the adapter's description, so the same model on the same GPU is not probed again, in this
 * worker or in a later one (workers are disposable). Kept in IndexedDB where the context has it, in memory
 * otherwise (Node tests); a storage failure only costs a probe.
 */
import type { ProbeDecision } from './backendChoice.ts';

const DB = 'quant-studio-runtime';
const STORE = 'backend-probes';
const memory = new Map<string, ProbeDecision>();

async function digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The cache key of a model on a device. */
export async function probeKey(bytes: Uint8Array, adapter: string): Promise<string> {
  return `${await digest(bytes)}|${adapter}`;
}

function open(): Promise<IDBDatabase | null> {
  const idb = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (!idb) return Promise.resolve(null);
  return new Promise((resolve) => {
    const req = idb.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
}

export async function readProbe(key: string): Promise<ProbeDecision | null> {
  const known = memory.get(key);
  if (known) return known;
  const db = await open();
  if (!db) return null;
  return new Promise((resolve) => {
    const req = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
    req.onsuccess = () => {
      const value = req.result as ProbeDecision | undefined;
      if (value) memory.set(key, value);
      db.close();
      resolve(value ?? null);
    };
    req.onerror = () => (db.close(), resolve(null));
  });
}

export async function writeProbe(key: string, decision: ProbeDecision): Promise<void> {
  memory.set(key, decision);
  const db = await open();
  if (!db) return;
  await new Promise<void>((resolve) => {
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(decision, key);
    tx.oncomplete = () => (db.close(), resolve());
    tx.onerror = () => (db.close(), resolve());
  });
}
