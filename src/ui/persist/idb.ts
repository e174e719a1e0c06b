/**
 * A small promise wrapper over IndexedDB: one database with one key-value object store. Enough for the
 * session (a handful of records, Blobs included: IndexedDB keeps File and Blob values by reference to
 * the browser's blob storage, without reading them into memory). No dependency, no schema beyond that.
 */
import { StudioError } from '../../core/onnx/errors.ts';

/** IndexedDB is missing (some private modes) or refused to open. */
export class StorageUnavailableError extends StudioError {
  override readonly name = 'StorageUnavailableError';
}

const done = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });

export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** Writes several records in one transaction: all of them or (on a quota error) none. */
  putAll(records: Record<string, unknown>): Promise<void>;
  delete(key: string): Promise<void>;
  clear(): Promise<void>;
}

/** Opens (creating on first use) database `name` with one object store `store`. */
export async function openKeyValueStore(name: string, store: string): Promise<KeyValueStore> {
  if (typeof indexedDB === 'undefined') throw new StorageUnavailableError('This browser offers no IndexedDB here');
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => {
    if (!open.result.objectStoreNames.contains(store)) open.result.createObjectStore(store);
  };
  let db: IDBDatabase;
  try {
    db = await done(open);
  } catch (e) {
    throw new StorageUnavailableError(`IndexedDB could not be opened: ${(e as Error)?.message ?? e}`);
  }

  const transaction = (mode: IDBTransactionMode, work: (s: IDBObjectStore) => void) =>
    new Promise<void>((resolve, reject) => {
      const tx = db.transaction(store, mode);
      tx.oncomplete = () => resolve();
      // A quota error aborts the transaction; its error says why.
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
      tx.onerror = () => undefined;
      work(tx.objectStore(store));
    });

  return {
    async get<T>(key: string) {
      return (await done(db.transaction(store, 'readonly').objectStore(store).get(key))) as T | undefined;
    },
    putAll(records) {
      return transaction('readwrite', (s) => {
        for (const [key, value] of Object.entries(records)) s.put(value, key);
      });
    },
    delete(key) {
      return transaction('readwrite', (s) => s.delete(key));
    },
    clear() {
      return transaction('readwrite', (s) => s.clear());
    },
  };
}
