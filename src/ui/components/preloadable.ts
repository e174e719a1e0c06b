/**
 * A lazily loaded component that, once its code is here, renders at once. React.lazy suspends on its first
 * render even when the module was fetched ahead (its own promise is new to React), and React then waits out its
 * reveal throttle (about 300 ms, measured on the first drop: summary shown, graph step mounted 0.2–0.3 s later).
 * This wrapper keeps the loaded component and renders it directly; before that it falls back to React.lazy.
 */
import { createElement, lazy, type ComponentType } from 'react';

export interface Preloadable<P extends object> {
  /** Fetches and evaluates the code; afterwards the component renders without suspending. */
  load(): Promise<unknown>;
  Component: ComponentType<P>;
}

export function preloadable<P extends object>(importer: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<{ default: ComponentType<P> }> | null = null;
  const load = () =>
    (pending ??= importer().then(
      (m) => {
        loaded = m.default;
        return m;
      },
      (e: unknown) => {
        pending = null; // a failed fetch may be retried by the next render
        throw e;
      },
    ));
  const Lazy = lazy(load);
  const Component = (props: P) => createElement((loaded ?? Lazy) as ComponentType<P>, props);
  Component.displayName = 'Preloadable';
  return { load, Component };
}
