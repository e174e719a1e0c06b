/**
 * The page: a header that says what the studio is and promises that nothing leaves the machine, the
 * model step, and once a model is open the later steps (calibration, graph, exclusions, evaluation,
 * recovery), each a feature of its own, loaded lazily: on first use, or ahead of it once the page is idle.
 */
import { lazy, Suspense } from 'react';
import { ModelScreen } from './features/model/ModelScreen.tsx';
import { SessionBar } from './features/session/SessionBar.tsx';
import { SampleRunCard } from './features/sample/SampleRunCard.tsx';
import { useStudio } from './store/index.ts';

const steps = {
  calibration: () => import('./features/calibration/CalibrationScreen.tsx'),
  graph: () => import('./features/graph/GraphScreen.tsx'),
  exclusion: () => import('./features/exclusion/ExclusionPanel.tsx'),
  evaluation: () => import('./features/report/EvaluationScreen.tsx'),
  recover: () => import('./features/recover/RecoverScreen.tsx'),
};
const CalibrationScreen = lazy(steps.calibration);
const GraphScreen = lazy(steps.graph);
const ExclusionPanel = lazy(steps.exclusion);
const EvaluationScreen = lazy(steps.evaluation);
const RecoverScreen = lazy(steps.recover);

/** Fetches the later steps' code (cytoscape with the graph) ahead of the first model; for an idle page. */
export function prefetchSteps(): void {
  for (const load of Object.values(steps)) load().catch(() => undefined); // a failure shows when the step renders
}

export function App() {
  const hasModel = useStudio((s) => s.model.summary !== null);
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
        {hasModel && (
          <Suspense fallback={null}>
            <ExclusionPanel />
          </Suspense>
        )}
        {hasModel && (
          <Suspense fallback={null}>
            <CalibrationScreen />
            <RecoverScreen />
            <EvaluationScreen />
          </Suspense>
        )}
      </main>
    </div>
  );
}
