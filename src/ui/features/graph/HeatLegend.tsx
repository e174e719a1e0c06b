/** The heat map's legend: what is shown, its scale from worst to best, and how many nodes have a value. */
import type { GraphHeat } from '../../store/graphSlice.ts';
import { heatColour, type HeatScale } from './heat.ts';

const num = (v: number) => (Number.isFinite(v) ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)) : '—');

export function HeatLegend({ heat, scale, onClear }: { heat: GraphHeat; scale: HeatScale; onClear(): void }) {
  const [left, right] = heat.higherIsBetter ? [scale.min, scale.max] : [scale.max, scale.min];
  const stops = [0, 0.25, 0.5, 0.75, 1].map((q) => `${heatColour(q)} ${q * 100}%`).join(', ');
  return (
    <div className="heat-legend" data-testid="graph-heat-legend">
      <strong className="small">{heat.label}</strong>
      <span className="small">{num(left)} (worst)</span>
      <span
        className="heat-legend__bar"
        style={{ background: `linear-gradient(to right, ${stops})` }}
        aria-hidden="true"
      />
      <span className="small">{num(right)} (best)</span>
      <span className="small muted">{scale.count} nodes with a value</span>
      <button type="button" className="button button--small" onClick={onClear}>
        Hide heat map
      </button>
    </div>
  );
}
