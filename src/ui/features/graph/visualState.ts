/**
 * One flag array per box for the renderer (FLAG bits): excluded nodes (shaded), the preview of the
 * current picks, the list entry under the pointer, the picks themselves, the selection and search
 * matches. Node indices and ids are turned into boxes here.
 */
import type { GraphView } from './viewModel.ts';
import { boxOfId } from './viewModel.ts';
import { FLAG } from './flags.ts';

export interface VisualInputs {
  excluded: Uint8Array;
  preview: readonly number[];
  hovered: readonly number[];
  starts: readonly string[];
  ends: readonly string[];
  picked: readonly string[];
  selected: string | null;
  matches: readonly number[];
}

export function visualFlags(view: GraphView, s: VisualInputs): Uint8Array {
  const flags = new Uint8Array(view.boxes.length);
  // Resolved node sets light only nodes that have a box: a folded Constant in a set must not make
  // its consumer look excluded. Picks and the selection, by id, fall back to the consumer's box.
  const byNode = (i: number, bit: number) => {
    if (view.boxOfNode[i] >= 0) flags[view.boxOfNode[i]] |= bit;
  };
  const byId = (id: string, bit: number) => {
    const b = boxOfId(view, id);
    if (b !== undefined) flags[b] |= bit;
  };
  s.excluded.forEach((x, i) => x && byNode(i, FLAG.excluded));
  s.preview.forEach((i) => byNode(i, FLAG.preview));
  s.hovered.forEach((i) => byNode(i, FLAG.hovered));
  s.starts.forEach((id) => byId(id, FLAG.start));
  s.ends.forEach((id) => byId(id, FLAG.end));
  s.picked.forEach((id) => byId(id, FLAG.picked));
  if (s.selected) byId(s.selected, FLAG.selected);
  for (const b of s.matches) flags[b] |= FLAG.match;
  return flags;
}
