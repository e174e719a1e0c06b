/**
 * The model slice: which model is open, what it looks like (its summary), and what went wrong with the
 * last file the user gave. It holds the worker's handle, never the model's bytes (docs/ARCHITECTURE.md,
 * principle 8), and it talks to the worker only through the ModelService it is given, so tests drive it
 * with a fake service and no React.
 *
 * Nothing the user had is lost on a bad file: a failed open keeps the model that was open, and only the
 * newest request wins when files are dropped in quick succession.
 */
import type { StateCreator } from 'zustand';
import type { ModelSummary } from '../../core/onnx/index.ts';

/** 'error' means the last open failed; a model opened before may still be shown (summary not null). */
export type ModelStatus = 'empty' | 'loading' | 'ready' | 'error';

/** A failed open, as the page shows it: the error's stable name, its message, and the file it was about. */
export interface ModelError {
  name: string;
  message: string;
  fileName: string;
}

/**
 * A model to open: the .onnx file's bytes (transferred away) and its external-data files by file name, as
 * the user's Files: never read on the page (a File of 2 GiB or more cannot be read at once, nor its bytes
 * posted to a worker), the workers read them.
 */
export interface ModelBytes {
  bytes: ArrayBuffer;
  externalFiles: Record<string, Blob>;
}

/** Something the user asked to open: a dropped or picked file, or the sample model's URL. */
export interface ModelSource {
  fileName: string;
  /** Size in bytes when known before reading (a File); null for a download. */
  byteLength: number | null;
  /** Reads the bytes; rejects with a named error when there is nothing to open. */
  read(): Promise<ModelBytes>;
}

export interface OpenedModelInfo {
  handle: string;
  summary: ModelSummary;
  /**
   * For a model the page read itself and shows at once while the worker opens it too: settles when the worker
   * holds it. A rejection (the worker could not open what the page could) undoes the open.
   */
  settled?: Promise<void>;
}

/** What the slice needs from the model worker (src/ui/remote implements it). */
/**
 * How a model is opened. `onPage: false`: the worker alone decodes it, with no decode on the page for a quicker first
 * picture (remote/openOnPage.ts); for a model whose single pane is not shown (the first of two dropped together).
 */
export interface OpenOptions {
  onPage?: boolean;
}

export interface ModelService {
  open(fileName: string, data: ModelBytes, options?: OpenOptions): Promise<OpenedModelInfo>;
  close(handle: string): Promise<void>;
}

export interface ModelState {
  status: ModelStatus;
  /** Name of the open model's file; null when none is open. */
  fileName: string | null;
  /** The worker's id of the open model. */
  handle: string | null;
  summary: ModelSummary | null;
  /** The file being opened right now (status 'loading'); byteLength is null until known. */
  pending: { fileName: string; byteLength: number | null } | null;
  error: ModelError | null;
}

export interface ModelSlice {
  model: ModelState;
  /** Opens a model, replacing the open one on success and keeping it on failure. */
  openModel(source: ModelSource, options?: OpenOptions): Promise<void>;
  /** Hides the error of the last failed open. */
  dismissModelError(): void;
  /** Closes the open model (and abandons one being opened). */
  closeModel(): void;
}

export const emptyModelState: ModelState = {
  status: 'empty',
  fileName: null,
  handle: null,
  summary: null,
  pending: null,
  error: null,
};

/** Any thrown value as a ModelError; the name is what the page branches on. */
export function toModelError(e: unknown, fileName: string): ModelError {
  if (e instanceof Error || (typeof e === 'object' && e !== null && 'message' in e)) {
    const { name, message } = e as { name?: unknown; message?: unknown };
    return { name: typeof name === 'string' && name ? name : 'Error', message: String(message ?? ''), fileName };
  }
  return { name: 'Error', message: String(e), fileName };
}

/** An open that has not finished after this long shows the loading state (file name, size, spinner). */
export const LOADING_STATE_DELAY_MS = 150;

const settled = (state: Pick<ModelState, 'summary'>): ModelStatus => (state.summary ? 'ready' : 'empty');

export function createModelSlice<S extends ModelSlice>(service: ModelService): StateCreator<S, [], [], ModelSlice> {
  // Each open gets a number; only the newest may change the state when it finishes.
  let latest = 0;
  const closeQuietly = (handle: string | null) => {
    if (handle) service.close(handle).catch(() => undefined);
  };

  return (set, get) => {
    const setModel = (patch: Partial<ModelState>) => set((s) => ({ model: { ...s.model, ...patch } }) as Partial<S>);

    return {
      model: emptyModelState,

      async openModel(source, options) {
        const request = ++latest;
        performance.mark('model:read-start');
        const reading = source.read();
        // The loading state only for an open that takes a while: a small model is on screen sooner than that, and
        // rendering the card first cost its first frame's style, layout and paint (20 ms on 2 cores, Chromium
        // trace), which also held back the read's result. Until then the page shows what it showed.
        let byteLength = source.byteLength;
        const showLoading = setTimeout(() => {
          if (request === latest)
            setModel({ status: 'loading', pending: { fileName: source.fileName, byteLength }, error: null });
        }, LOADING_STATE_DELAY_MS);
        try {
          const data = await reading;
          performance.mark('model:read');
          if (request !== latest) return;
          byteLength = data.bytes.byteLength;
          if (get().model.pending) setModel({ pending: { fileName: source.fileName, byteLength } });
          const opened = await service.open(source.fileName, data, options);
          performance.mark('model:opened');
          if (request !== latest) {
            closeQuietly(opened.handle);
            return;
          }
          clearTimeout(showLoading);
          const previous = get().model;
          setModel({
            status: 'ready',
            fileName: source.fileName,
            handle: opened.handle,
            summary: opened.summary,
            pending: null,
            error: null,
          });
          // The model the user had stays open until the new one is surely usable, so that a failure can give it back.
          const failure = opened.settled
            ? await opened.settled.then(
                () => null,
                (e: unknown) => e ?? new Error('the model could not be opened'),
              )
            : null;
          if (failure === null) {
            closeQuietly(previous.handle);
            return;
          }
          closeQuietly(opened.handle);
          if (get().model.handle !== opened.handle) {
            closeQuietly(previous.handle); // a newer model or a close since: that one stands
            return;
          }
          setModel({ ...previous, status: 'error', pending: null, error: toModelError(failure, source.fileName) });
        } catch (e) {
          if (request !== latest) return;
          clearTimeout(showLoading);
          setModel({ status: 'error', pending: null, error: toModelError(e, source.fileName) });
        }
      },

      dismissModelError() {
        const model = get().model;
        if (model.status !== 'error') return;
        setModel({ status: settled(model), error: null });
      },

      closeModel() {
        latest++;
        closeQuietly(get().model.handle);
        set({ model: emptyModelState } as Partial<S>);
      },
    };
  };
}
