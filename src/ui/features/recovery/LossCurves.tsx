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
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width={W}
        height={H}
        role="img"
        aria-label={`Loss of ${layer.id} over ${x1} iterations: from ${pts[0].loss.toPrecision(3)} to ${pts[pts.length - 1].loss.toPrecision(3)}`}
      >
        <rect x={0} y={0} width={W} height={H} className="loss-curve__bg" />
        <path d={d} className="loss-curve__line" fill="none" />
      </svg>
      <figcaption className="muted small">
        {layer.id}: loss {pts[0].loss.toPrecision(3)} → {pts[pts.length - 1].loss.toPrecision(3)} over {x1} iterations
        (log scale)
      </figcaption>
    </figure>
  );
}

/** Every tuned layer's loss before (grey) and after (blue), in graph order (log scale): one point per layer. */
export function LayerLosses({ layers }: { layers: readonly LayerCurve[] }) {
  if (layers.length === 0) return null;
  const values = layers.flatMap((l) => [log(l.lossBefore), log(l.lossAfter)]);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const sx = (i: number) => PAD + (layers.length === 1 ? (W - 2 * PAD) / 2 : (i / (layers.length - 1)) * (W - 2 * PAD));
  const sy = (v: number) => H - PAD - ((log(v) - lo) / (hi - lo || 1)) * (H - 2 * PAD);
  const line = (f: (l: LayerCurve) => number) =>
    layers.map((l, i) => `${i ? 'L' : 'M'}${sx(i).toFixed(1)},${sy(f(l)).toFixed(1)}`).join('');
  const improved = layers.filter((l) => l.lossAfter < l.lossBefore).length;
  return (
    <figure className="loss-curve">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width={W}
        height={H}
        role="img"
        data-testid="layer-losses"
        aria-label={`Loss of ${layers.length} tuned layers before and after; ${improved} improved`}
      >
        <rect x={0} y={0} width={W} height={H} className="loss-curve__bg" />
        <path d={line((l) => l.lossBefore)} className="layer-losses__before" fill="none" />
        <path d={line((l) => l.lossAfter)} className="layer-losses__after" fill="none" />
        {layers.map((l, i) => (
          <circle key={l.id} cx={sx(i)} cy={sy(l.lossAfter)} r={2.5} className="layer-losses__point">
            <title>{`${l.id}: ${l.lossBefore.toPrecision(3)} → ${l.lossAfter.toPrecision(3)}`}</title>
          </circle>
        ))}
      </svg>
      <figcaption className="muted small">
        {layers.length} tuned layer{layers.length === 1 ? '' : 's'} in graph order: loss before (grey) and after (blue),
        log scale; {improved} improved
      </figcaption>
    </figure>
  );
}
