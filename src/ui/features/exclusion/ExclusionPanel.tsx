/**
 * The exclusion step: the list of what stays float (entries the graph view adds, or added here by node
 * id or op type), and the export and import of the configuration. Loaded with the steps after a model
 * is open.
 */
import { useStudio } from '../../store/index.ts';
import { AddExclusion } from './AddExclusion.tsx';
import { ExclusionList, isFp32Entry } from './ExclusionList.tsx';
import { ExportImport } from './ExportImport.tsx';
import { useModelIndex } from './useModelIndex.ts';
import './exclusion.css';
import { TitleCount } from '../../components/TitleCount.tsx';

export default function ExclusionPanel() {
  const count = useStudio((s) => s.exclusions.entries.filter((e) => !isFp32Entry(e)).length);
  const fp32Count = useStudio((s) => s.exclusions.entries.filter(isFp32Entry).length);
  const float16 = useStudio((s) => s.model.summary?.float16 === true);
  const indexState = useModelIndex();
  const index = indexState.status === 'ready' ? indexState.index : null;
  return (
    <section className="card exclusion-panel" aria-labelledby="exclusion-title" data-testid="exclusion-panel">
      <h3 id="exclusion-title" className="card__title">
        Keep in float <TitleCount count={count} testId="exclusion-count" />
      </h3>
      {indexState.status === 'error' && (
        <p className="exclusion-add__error small" role="alert">
          The model's graph could not be read: {indexState.message}
        </p>
      )}
      <ExclusionList index={index} />
      <AddExclusion index={index} />
      {(float16 || fp32Count > 0) && (
        <section className="fp32-section" aria-labelledby="fp32-title" data-testid="fp32-panel">
          <h4 id="fp32-title" className="card__subtitle">
            Convert to FP32 <TitleCount count={fp32Count} testId="fp32-count" />
          </h4>
          <p className="muted small">
            Float16 model: the guide's first step (convert_fp16_to_fp32, subgraphs_to_include). These subgraphs are
            quantized from float32; the rest stays float16.
          </p>
          <ExclusionList index={index} list="fp32" />
        </section>
      )}
      <ExportImport index={index} />
    </section>
  );
}
