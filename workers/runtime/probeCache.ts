/**
 * What the backend probes measured, kept per model and device (ort.ts): each backend's session, first-run and
 * steady costs under the SHA-256 of the model bytes a session runs and the adapter's description, so the same
 * model on the same GPU is decided without a probe, in this worker or a later one (workers are disposable); and,
 * per device, WebGPU's most cautious measured start-up and run ratio, the estimate for a model not measured yet. Kept in IndexedDB where
 * the context has it, in memory otherwise (Node tests); a storage failure only costs a probe.
 */
import type { DevicePrior, MeasuredCosts } from './backendChoice.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';

const DB = 'quant-studio-runtime';
const STORE = 'backend-probes';
const memory = new Map<string, unknown>();

/** The cache key of a model on a device. */
export async function probeKey(bytes: Uint8Array, adapter: string): Promise<string> {
  return `costs|${await sha256Hex(bytes)}|${adapter}`;
}

/** The key of a device's last measured WebGPU figures. */
const priorKey = (adapter: string): string => `prior|${adapter}`;

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

async function read(key: string): Promise<unknown> {
  if (memory.has(key)) return memory.get(key);
  const db = await open();
  if (!db) return null;
  return new Promise((resolve) => {
    const req = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
    req.onsuccess = () => {
      if (req.result !== undefined) memory.set(key, req.result);
      db.close();
      resolve(req.result ?? null);
    };
    req.onerror = () => (db.close(), resolve(null));
  });
}

async function write(key: string, value: unknown): Promise<void> {
  memory.set(key, value);
  const db = await open();
  if (!db) return;
  await new Promise<void>((resolve) => {
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(value, key);
    tx.oncomplete = () => (db.close(), resolve());
    tx.onerror = () => (db.close(), resolve());
  });
}

const isCost = (c: unknown): boolean =>
  typeof c === 'object' &&
  c !== null &&
  ['createMs', 'firstRunMs', 'steadyMs'].every((k) => Number.isFinite((c as Record<string, unknown>)[k]));

/** Both backends' costs measured earlier on this model and device, or null (an entry of another shape is ignored). */
export async function readCosts(key: string): Promise<MeasuredCosts | null> {
  const v = (await read(key)) as Partial<MeasuredCosts> | null;
  return v && isCost(v.webgpu) && isCost(v.wasm) ? (v as MeasuredCosts) : null;
}

export const writeCosts = (key: string, costs: MeasuredCosts): Promise<void> => write(key, costs);

/** WebGPU's figures measured on this device (the most cautious over its models), or null (an older shape is ignored). */
export async function readPrior(adapter: string): Promise<DevicePrior | null> {
  const v = (await read(priorKey(adapter))) as Partial<DevicePrior> | null;
  return v && Number.isFinite(v.startupRuns) && Number.isFinite(v.runRatio)
    ? { startupRuns: v.startupRuns!, runRatio: v.runRatio!, measured: true }
    : null;
}

export const writePrior = (adapter: string, prior: DevicePrior): Promise<void> => write(priorKey(adapter), prior);
