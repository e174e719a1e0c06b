/**
 * The state while a model opens: which file, how big, and that work is under way. Shown in place of
 * the empty state, or above the model that stays open until the new one is ready.
 */
import { Spinner } from '../../components/Spinner.tsx';
import { formatBytes } from '../../components/format.ts';

export function LoadingCard({ fileName, byteLength }: { fileName: string; byteLength: number | null }) {
  return (
    <section className="card loading-card" data-testid="model-loading" role="status" aria-live="polite">
      <Spinner size={28} />
      <div>
        <div className="loading-card__title">
          Opening <span className="file-name">{fileName}</span>
        </div>
        <div className="loading-card__detail">
          {byteLength === null
            ? 'Downloading from this site…'
            : `${formatBytes(byteLength)} · reading the graph and weights…`}
        </div>
      </div>
    </section>
  );
}
