/**
 * Loss curves of the tuned layers as inline SVG (no chart library): the reconstruction loss of the layer
 * being shown over its iterations (log scale, since losses fall by orders of magnitude), and beside it each
 * tuned layer's loss before → after. Pure rendering of numbers the worker measured.
 */
import type { LayerCurve } from '../../store/recoverySlice.ts';

const W = 320;
const H = 120;
const PAD = 6;

const log = (v: number) => Math.log10(Math.max(v, 1e-12));

/** One layer's loss over iterations. */
export function CurveChart({ layer }: { layer: LayerCurve }) {
  const pts = layer.curve;
  if (pts.length < 2) return <p className="muted small">{layer.id}: no curve (the layer was not iterated).</p>;
  const xs = pts.map((p) => p.iteration);
  const ys = pts.map((p) => log(p.loss));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const sx = (x: number) => PAD + ((x - x0) / (x1 - x0 || 1)) * (W - 2 * PAD);
  const sy = (y: number) => H - PAD - ((y - y0) / (y1 - y0 || 1)) * (H - 2 * PAD);
  const d = pts.map((p, i) => `${i ? 'L' : 'M'}${sx(p.iteration).toFixed(1)},${sy(log(p.loss)).toFixed(1)}`).join('');
  return (
    <figure className="loss-curve" data-testid="loss-curve">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Loss of ${layer.id} over ${x1} iterations: from ${pts[0].loss.toPrecision(3)} to ${pts[pts.length - 1].loss.toPrecision(3)}`}>
        <rect x={0} y={0} width={W} height={H} className="loss-curve__bg" />
        <path d={d} className="loss-curve__line" fill="none" />
      </svg>
      <figcaption className="muted small">
        {layer.id}: loss {pts[0].loss.toPrecision(3)} → {pts[pts.length - 1].loss.toPrecision(3)} over {x1} iterations (log scale)
      </figcaption>
    </figure>
  );
}

/** Every tuned layer's loss before and after, as paired bars (log scale). */
export function LayerLosses({ layers }: { layers: readonly LayerCurve[] }) {
  if (layers.length === 0) return null;
  const values = layers.flatMap((l) => [log(l.lossBefore), log(l.lossAfter)]);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const bar = 10;
  const height = layers.length * (bar + 4) + PAD;
  const sx = (v: number) => 2 + ((log(v) - lo) / (hi - lo || 1)) * (W - 130);
  return (
    <svg viewBox={`0 0 ${W} ${height}`} width={W} height={height} role="img" aria-label="Loss of each tuned layer before and after" data-testid="layer-losses">
      {layers.map((l, i) => {
        const y = PAD + i * (bar + 4);
        return (
          <g key={l.id}>
            <title>{`${l.id}: ${l.lossBefore.toPrecision(3)} → ${l.lossAfter.toPrecision(3)}${l.kept ? ' (kept the nearest rounding)' : ''}`}</title>
            <rect x={0} y={y} width={sx(l.lossBefore)} height={bar / 2} className="layer-losses__before" />
            <rect x={0} y={y + bar / 2} width={sx(l.lossAfter)} height={bar / 2} className="layer-losses__after" />
            <text x={W - 124} y={y + bar - 1} className="layer-losses__label">{l.id.length > 22 ? `${l.id.slice(0, 21)}…` : l.id}</text>
          </g>
        );
      })}
    </svg>
  );
}
