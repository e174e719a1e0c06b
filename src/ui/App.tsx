/**
 * The page: a header that says what the studio is and promises that nothing leaves the machine, and
 * the current step's screen. Only the model step exists so far; later steps (graph, calibration,
 * exclusion, run, report) join here as features of their own.
 */
import { ModelScreen } from './features/model/ModelScreen.tsx';

export function App() {
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
        <ModelScreen />
      </main>
    </div>
  );
}
