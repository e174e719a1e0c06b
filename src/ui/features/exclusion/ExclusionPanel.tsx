/**
 * The exclusion step: the list of what stays float (entries the graph view adds, or added here by node
 * id or op type), and the export and import of the configuration. Loaded with the steps after a model
 * is open.
 */
import { useStudio } from '../../store/index.ts';
import { AddExclusion } from './AddExclusion.tsx';
import { ExclusionList } from './ExclusionList.tsx';
import { ExportImport } from './ExportImport.tsx';
import { useModelIndex } from './useModelIndex.ts';
import './exclusion.css';

export default function ExclusionPanel() {
  const count = useStudio((s) => s.exclusions.entries.length);
  const indexState = useModelIndex();
  const index = indexState.status === 'ready' ? indexState.index : null;
  return (
    <section className="card exclusion-panel" aria-labelledby="exclusion-title" data-testid="exclusion-panel">
      <h3 id="exclusion-title" className="card__title">
        Keep in float <span className="card__count" data-testid="exclusion-count">{count}</span>
      </h3>
      {indexState.status === 'error' && <p className="exclusion-add__error small" role="alert">The model's graph could not be read: {indexState.message}</p>}
      <ExclusionList index={index} />
      <AddExclusion index={index} />
      <ExportImport index={index} />
    </section>
  );
}
