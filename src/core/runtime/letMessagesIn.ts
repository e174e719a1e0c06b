/**
 * A worker takes a message (a Cancel among them) only between tasks, and onnxruntime-web's WASM runs and the
 * optimizers' steps resolve as microtasks: a loop of them never lets a message in. `letMessagesIn` gives the thread one
 * macrotask at most every YIELD_EVERY_MS, so code that checks a cancel flag after it sees a cancel sent meanwhile.
 * Measured on the page: without it, a Cancel during the ladder's screening or mixed-precision rungs was seen only at
 * the next fine-tuning rung (which yields in its own loop), after the rungs between had run to the end.
 */

/** How often: rare enough to cost nothing beside a model run or a hundred optimizer steps. */
const YIELD_EVERY_MS = 100;
let lastYield = 0;

/** Resolves in a later task of the event loop: the messages that came meanwhile are taken first. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves in a later task when YIELD_EVERY_MS have passed since the last time it did; else at once. */
export async function letMessagesIn(): Promise<void> {
  const now = performance.now();
  if (now - lastYield < YIELD_EVERY_MS) return;
  lastYield = now;
  await nextTask();
}
