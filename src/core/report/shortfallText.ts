/**
 * A ladder's shortfall (report.ts ReportLadderShortfall) as lines of text, shared by the command line, the HTML report
 * and the page: the reasons, the 16-bit sets measured on the held-in samples, the tensors lifted to 16 bits that still
 * missed, every activation (and every weight) at 16 bits where measured, the coarser grids measured (how many bits the
 * target needs), and the most sensitive units with their measured gain. Pure.
 */
import type { ReportLadderFigure, ReportLadderShortfall } from './report.ts';

/** Most tensor names a line lists before "… and N more". */
const NAMES_SHOWN = 12;

function figureText(f: ReportLadderFigure): string {
  const score = Number.isFinite(f.score) ? `${+f.score.toFixed(5)}` : 'undefined';
  return f.cer === undefined ? score : `${score}, CER ${(100 * f.cer).toFixed(2)} %`;
}

function namesText(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} … and ${names.length - NAMES_SHOWN} more` : shown;
}

/** One heading and its lines, in the order shown. */
export interface ShortfallSection {
  readonly heading: string;
  readonly lines: readonly string[];
}

/** The shortfall in sections: why, the growth's measurements, the tensors, the sensitive units. */
export function shortfallSections(s: ReportLadderShortfall): ShortfallSection[] {
  const sections: ShortfallSection[] = [{ heading: 'Why the target was not met', lines: s.why }];
  const measured: string[] = s.growth.map(
    (g) =>
      `${g.act16} activation pairs, ${g.w16} weight${g.w16 === 1 ? '' : 's'} at 16 bits: held in ${figureText(g)}${g.met ? ' (met)' : ''}`,
  );
  if (s.chosen)
    measured.push(`chosen set: held in ${figureText(s.chosen.heldIn)}, held out ${figureText(s.chosen.heldOut)}`);
  if (s.ceiling)
    measured.push(
      `every activation at 16 bits (${s.ceiling.act16} pairs, ${s.ceiling.w16} weight${s.ceiling.w16 === 1 ? '' : 's'}): held in ${figureText(s.ceiling.heldIn)}, held out ${figureText(s.ceiling.heldOut)}${s.ceiling.met ? ' (met)' : ''}`,
    );
  if (s.weightCeiling)
    measured.push(
      `every weight at 16 bits (${s.weightCeiling.w16}), activations at 8: held in ${figureText(s.weightCeiling.heldIn)}, held out ${figureText(s.weightCeiling.heldOut)}${s.weightCeiling.met ? ' (met)' : ''}`,
    );
  const gridText = (bits: number, kind: string) =>
    bits === 16 ? `every ${kind} at 16 bits` : `every ${kind} on a ${bits}-bit grid`;
  for (const g of s.grids ?? [])
    measured.push(
      `${gridText(g.activationBits, 'activation')}, ${gridText(g.weightBits, 'weight')} (16-bit Q/DQ stepped coarser): held in ${figureText(g.heldIn)}, held out ${figureText(g.heldOut)}${g.met ? ' (met)' : ''}`,
    );
  if (measured.length > 0) sections.push({ heading: 'Measured', lines: measured });
  if (s.lifted && s.lifted.activations.length + s.lifted.weights.length > 0)
    sections.push({
      heading: 'At 16 bits in the largest set measured, and still short',
      lines: [
        ...(s.lifted.activations.length
          ? [`${s.lifted.activations.length} activations: ${namesText(s.lifted.activations)}`]
          : []),
        ...(s.lifted.weights.length
          ? [
              `${s.lifted.weights.length} weight${s.lifted.weights.length === 1 ? '' : 's'}: ${namesText(s.lifted.weights)}`,
            ]
          : []),
      ],
    });
  if (s.sensitive.length > 0)
    sections.push({
      heading: 'Most sensitive units measured (gain: drop in relative output noise power)',
      lines: s.sensitive.map(
        (u) =>
          `${u.kind === 'act16' ? 'activation' : u.kind === 'w16' ? 'weight' : 'node in float'} ${namesText(u.tensors)}: ${+u.gain.toPrecision(3)}`,
      ),
    });
  return sections;
}
