/**
 * Two .onnx files dropped together anywhere on the page ask for a comparison: the model step opens the first as the
 * model and leaves the pair here, with the end of that open; the graph step's comparison launcher takes it as soon as
 * it is mounted (at once when it already is) and compares the open model, as the model worker holds it, with the second. One pending request at a time; a newer one replaces it.
 * From the drop until that comparison ends (pairInProgress, useSyncExternalStore's form) the graph step does not
 * prepare the single pane of the first model, which the split view replaces.
 */
/** Two files to compare, and when the first was dropped on the page: the end of its open as the model. */
export interface ComparisonRequest {
  files: File[];
  firstOpened?: Promise<void>;
}
type Listener = (request: ComparisonRequest) => void;

let pending: ComparisonRequest | null = null;
const listeners = new Set<Listener>();
/** The request dropped last, until its comparison ends (shown or failed). */
let inProgress: ComparisonRequest | null = null;
const progressListeners = new Set<() => void>();
const setInProgress = (request: ComparisonRequest | null) => {
  inProgress = request;
  for (const l of progressListeners) l();
};

/** Whether these dropped files are two models to compare (exactly two .onnx files, nothing else). */
export function isComparePair(files: readonly File[]): boolean {
  return files.length === 2 && files.every((f) => /\.onnx$/i.test(f.name));
}

export function requestComparison(files: File[], firstOpened?: Promise<void>): void {
  pending = { files, firstOpened };
  setInProgress(pending);
  for (const l of listeners) l(pending);
}

/** Calls `listener` with the pending request (if any) and every later one; returns the unsubscribe. */
export function onComparisonRequest(listener: Listener): () => void {
  listeners.add(listener);
  if (pending) listener(pending);
  return () => listeners.delete(listener);
}

/** The request was taken: it is not handed out again. */
export function comparisonTaken(): void {
  pending = null;
}

/** The comparison of `request` ended (its split view shown, or its error): a newer request's stays in progress. */
export function comparisonEnded(request: ComparisonRequest): void {
  if (inProgress === request) setInProgress(null);
}

/** Whether a pair dropped on the page is still being compared. */
export function pairInProgress(): boolean {
  return inProgress !== null;
}

/** Calls `listener` whenever pairInProgress() changes; returns the unsubscribe. */
export function onPairProgress(listener: () => void): () => void {
  progressListeners.add(listener);
  return () => progressListeners.delete(listener);
}
