/**
 * Mount-later for the parts of the page below the fold: once `active`, the value turns true after the first
 * graph has been drawn (or `timeoutMs` at most, for a graph that fails or takes long) and the main thread is
 * idle. The first model's summary and graph then render and draw before the later steps' screens, whose first
 * render measured about 0.15–0.25 s on 2 cores, in the middle of the first drop otherwise.
 */
import { useEffect, useState } from 'react';

let graphDrawn = false;
const waiting = new Set<() => void>();

/** Called by the graph view when its first picture is on screen. */
export function notifyGraphDrawn(): void {
  graphDrawn = true;
  for (const fn of [...waiting]) fn();
  waiting.clear();
}

export function useIdleMount(active: boolean, timeoutMs = 2000): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!active) {
      setReady(false);
      return;
    }
    if (ready) return;
    let idle = 0;
    const go = () => {
      window.clearTimeout(timer);
      waiting.delete(go);
      if (idle) return;
      idle = window.requestIdleCallback
        ? window.requestIdleCallback(() => setReady(true), { timeout: 200 })
        : window.setTimeout(() => setReady(true), 0);
    };
    const timer = window.setTimeout(go, graphDrawn ? 0 : timeoutMs);
    if (!graphDrawn) waiting.add(go);
    return () => {
      window.clearTimeout(timer);
      waiting.delete(go);
      if (idle) (window.cancelIdleCallback ?? window.clearTimeout)(idle);
    };
  }, [active, ready, timeoutMs]);
  return active && ready;
}
