/**
 * The HTML report's parity section (issue 34): output cosine of the float and the quantized model on every runtime
 * the page had, against the WASM float reference, the runtimes that part from WASM beyond float rounding and the
 * first node where they part (core/evaluate/parity.ts). Empty when no parity check ran on the reported model.
 */
import type { ParityResult } from '../evaluate/parity.ts';
import { escapeHtml as e } from './htmlText.ts';

const cos = (v: number | null) => (v === null ? '—' : v.toFixed(6));

export function paritySection(parity: ParityResult | null | undefined): string {
  if (!parity) return '';
  const flagged = parity.rows.filter((r) => r.flagged);
  const rows = parity.rows.map((r) => {
    const where = r.error
      ? `did not run: ${e(r.error)}`
      : !r.flagged
        ? 'agrees'
        : r.parting
          ? `first parts at <code>${e(r.parting.node)}</code> (${e(r.parting.opType)}, tensor <code>${e(r.parting.tensor)}</code>, relative error ${r.parting.relativeError.toExponential(1)})${r.parting.floatNodeName && r.parting.floatNodeName !== r.parting.node ? `, feeding <code>${e(r.parting.floatNodeName)}</code>` : ''}`
          : 'parts only at the outputs';
    return `<tr${r.flagged ? ' class="bad"' : ''}><td>${e(r.label)}</td><td>${r.model}</td><td class="num">${r.error ? '—' : cos(r.cosine)}</td><td class="num">${r.error ? '—' : cos(r.agreement)}</td><td>${where}</td></tr>`;
  });
  const verdict =
    flagged.length === 0
      ? 'Every runtime agrees with WASM to float rounding on both models.'
      : `${flagged.length} runtime/model pair(s) part from WASM beyond float rounding: ${flagged.map((r) => `${e(r.label)} (${r.model})`).join('; ')}.`;
  const missing = parity.unavailable.map((u) => ` ${e(u.label)}: ${e(u.reason)}.`).join('');
  return `<section id="parity"><h2>Parity across runtimes</h2><p class="muted">The float and the quantized model on every runtime the page had, on ${parity.samples} evaluation image(s), graph optimization 'basic', against the WASM float reference.${missing}</p><p>${verdict}</p><table><thead><tr><th>Runtime</th><th>Model</th><th>Output cosine to WASM float</th><th>Agreement with WASM, same model</th><th>Where it parts</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}
