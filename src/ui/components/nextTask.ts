/**
 * `nextTask` resolves in a later task of the page's event loop, so that two pieces of main-thread work (a large
 * message's structured clone and what is built from it; a result's arrival and its first render) are two short tasks
 * instead of one long one, and the page can paint and take input in between. The same yield lets a worker take a
 * Cancel between rungs (core/runtime/letMessagesIn.ts, where it lives).
 */
export { nextTask } from '../../core/runtime/letMessagesIn.ts';
