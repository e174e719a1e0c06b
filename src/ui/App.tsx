/**
 * The page: a header that says what the studio is and promises that nothing leaves the machine, the
 * model step, and once a model is open the later steps (calibration, graph, exclusions, evaluation,
 * recovery), each a feature of its own, loaded lazily: on first use, or ahead of it once the page is idle.
 */
import { Suspense } from 'react';
import { preloadable } from './components/preloadable.ts';
import { useIdleMount } from './components/useIdleMount.ts';
import { ModelScreen } from './features/model/ModelScreen.tsx';
import { SessionBar } from './features/session/SessionBar.tsx';
import { SampleRunCard } from './features/sample/SampleRunCard.tsx';
import { useStudio } from './store/index.ts';
import type { OpenedOnPage } from './remote/openOnPage.ts';

const steps = {
  calibration: preloadable(() => import('./features/calibration/CalibrationScreen.tsx')),
  graph: preloadable(() => import('./features/graph/GraphScreen.tsx')),
  exclusion: preloadable(() => import('./features/exclusion/ExclusionPanel.tsx')),
  evaluation: preloadable(() => import('./features/evaluation/EvaluationScreen.tsx')),
  recover: preloadable(() => import('./features/recovery/RecoveryScreen.tsx')),
};
const CalibrationScreen = steps.calibration.Component;
const GraphScreen = steps.graph.Component;
const ExclusionPanel = steps.exclusion.Component;
const EvaluationScreen = steps.evaluation.Component;
const RecoveryScreen = steps.recover.Component;

/**
 * Fetches the later steps' code (cytoscape with the graph) ahead of the first model; for an idle page. Once
 * loaded, the steps render with the model's summary in the same frame instead of suspending.
 */
export function prefetchSteps(tiny: Promise<OpenedOnPage | null>): void {
  for (const step of Object.values(steps)) step.load().catch(() => undefined); // a failure shows when the step renders
  import('./features/graph/renderer.ts').then((m) => m.loadCytoscape()).catch(() => undefined); // its own chunk, see loadCytoscape
  // The first screen rendered once for a tiny model, hidden, so the first real model finds it ready (see warmUp.tsx);
  // not when a model is open or opening already (a restored session).
  Promise.all([import('./warmUp.tsx'), tiny])
    .then(([m, opened]) => {
      if (opened && useStudio.getState().model.status === 'empty') m.warmFirstScreen(opened);
    })
    .catch(() => undefined);
}

export function App() {
  const hasModel = useStudio((s) => s.model.summary !== null);
  // The summary and the graph first; the steps below them once the page is idle.
  const laterSteps = useIdleMount(hasModel);
  return (
    <div className="app">
      <header className="app-header">
        <div className="app-header__inner">
          <svg className="app-header__logo" viewBox="0 0 32 32" aria-hidden="true">
            <rect x="2" y="2" width="28" height="28" rx="7" fill="currentColor" />
            <path d="M9 21V11M14 21v-6M19 21v-8M24 21v-4" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
          </svg>
          <div>
            <h1 className="app-header__title">Quant Studio</h1>
            <p className="app-header__tagline">Quantize ONNX models in your browser — nothing leaves your machine.</p>
          </div>
        </div>
      </header>
      <main className="app-main">
        <SessionBar />
        <SampleRunCard />
        <ModelScreen />
        {hasModel && (
          <Suspense fallback={null}>
            <GraphScreen />
          </Suspense>
        )}
        {laterSteps && (
          <Suspense fallback={null}>
            <ExclusionPanel />
          </Suspense>
        )}
        {laterSteps && (
          <Suspense fallback={null}>
            <CalibrationScreen />
            <RecoveryScreen />
            <EvaluationScreen />
          </Suspense>
        )}
      </main>
    </div>
  );
}
