/** The precision view's legend: a swatch per precision class the model has, with how many nodes, and for which quantization. */
import { PRECISION_CLASSES, PRECISION_CLASS_LABELS } from '../../../core/quantize/precisionClasses.ts';
import { PRECISION_COLOURS, UNCLASSIFIED_COLOUR, type PrecisionScale } from './precisionColours.ts';

export function PrecisionLegend({ scale, source }: { scale: PrecisionScale; source: string }) {
  return (
    <div className="heat-legend" data-testid="graph-precision-legend">
      <strong className="small">Precision in {source}</strong>
      <ul className="graph-families small" aria-label="Colours of precisions">
        {PRECISION_CLASSES.filter((c) => scale.counts[c]).map((c) => (
          <li key={c} data-testid={`precision-legend-${c}`} data-count={scale.counts[c]}>
            <span className="graph-families__swatch" style={{ background: PRECISION_COLOURS[c] }} />{' '}
            {PRECISION_CLASS_LABELS[c]}: {scale.counts[c]}
          </li>
        ))}
        {scale.unclassified > 0 && (
          <li data-testid="precision-legend-none">
            <span className="graph-families__swatch" style={{ background: UNCLASSIFIED_COLOUR }} /> no Q/DQ of its own
            (inside a fused op, or Q/DQ): {scale.unclassified}
          </li>
        )}
      </ul>
    </div>
  );
}
