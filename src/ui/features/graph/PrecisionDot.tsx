/** A node's precision as a dot of its class's colour (the "colour by precision" view's), before its label in a table. */
import type { PrecisionClass } from '../../../core/quantize/precisionClasses.ts';
import { PRECISION_COLOURS } from './precisionColours.ts';

export function PrecisionDot({ precision }: { precision: PrecisionClass }) {
  return <span className="dot" style={{ background: PRECISION_COLOURS[precision] }} aria-hidden="true" />;
}
