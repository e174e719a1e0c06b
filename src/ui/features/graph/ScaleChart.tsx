/** A per-channel quantization's scales as a small bar chart (one bar a channel), with the smallest and largest. */
import { plainNumber } from '../../../core/graph/qdqFold.ts';

export function ScaleChart({ scales }: { scales: Float32Array }) {
  let max = 0,
    min = Infinity;
  for (const s of scales) {
    max = Math.max(max, s);
    min = Math.min(min, s);
  }
  const width = Math.max(40, scales.length);
  return (
    <span className="scale-chart" data-testid="scale-chart" data-channels={scales.length}>
      <svg
        className="inspector-histogram"
        viewBox={`0 0 ${width} 24`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${scales.length} channel scales from ${plainNumber(min)} to ${plainNumber(max)}`}
      >
        {Array.from(scales, (s, i) => {
          const h = max > 0 ? (24 * s) / max : 0;
          return (
            <rect
              key={i}
              x={(i * width) / scales.length}
              y={24 - h}
              width={Math.max(0.6, (0.85 * width) / scales.length)}
              height={h}
            />
          );
        })}
      </svg>
      <span className="small muted">
        {scales.length} channel scales, {plainNumber(min)} … {plainNumber(max)}
      </span>
    </span>
  );
}
