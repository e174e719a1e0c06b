/**
 * The zoom levels the "Zoom in" / "Zoom out" buttons (and + / −) step through. Between the whole graph ("fit") and
 * 100 % (labels read) at most three steps, however large the graph: a 20,000-node graph fitted at 0.001 reaches
 * readable labels in three clicks, not twenty. Below fit and above 100 % the steps are ×1.4. Pure: tested in Node.
 */
export const MIN_ZOOM = 1e-3;
export const MAX_ZOOM = 4;
/** The zoom at which boxes are drawn at their size: labels read (what "100 %" means). */
export const ACTUAL_SIZE = 1;
const STEP = 1.4;
const MAX_STEPS_TO_READABLE = 3;

/** Every zoom level, ascending, for a graph whose fitted zoom is `fit`. */
export function zoomStops(fit: number): number[] {
  const stops = new Set<number>([ACTUAL_SIZE, MAX_ZOOM]);
  for (let z = ACTUAL_SIZE * STEP; z < MAX_ZOOM; z *= STEP) stops.add(z);
  const low = Math.min(Math.max(fit, MIN_ZOOM), ACTUAL_SIZE);
  const span = Math.log(ACTUAL_SIZE / low);
  const steps = Math.min(MAX_STEPS_TO_READABLE, Math.ceil(span / Math.log(STEP) - 1e-9));
  for (let k = 0; k < steps; k++) stops.add(low * Math.exp((span * k) / steps));
  for (let z = low / STEP; z > MIN_ZOOM; z /= STEP) stops.add(z);
  stops.add(MIN_ZOOM);
  return [...stops].sort((a, b) => a - b);
}

/** The next zoom level from `zoom` in `direction` (1: in, −1: out); `zoom` itself at either end. */
export function nextZoom(zoom: number, direction: 1 | -1, fit: number): number {
  const stops = zoomStops(fit);
  if (direction > 0) return stops.find((s) => s > zoom * 1.001) ?? zoom;
  for (let i = stops.length - 1; i >= 0; i--) if (stops[i] < zoom / 1.001) return stops[i];
  return zoom;
}
