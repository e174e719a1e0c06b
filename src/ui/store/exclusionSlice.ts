/**
 * The exclusion slice: the user's list of what stays float — named subgraphs (starts → ends), sets of
 * single nodes and op types — and which entry the pointer is over (the graph highlights its nodes).
 *
 * Entries hold the foundation's stable node ids (src/core/onnx/nodeIds.ts), never resolved node sets:
 * resolution is the core's (src/core/exclude), run by the quantizer, the command line and the graph view
 * alike, so the list, the exported config and the written model cannot disagree. This slice does no
 * resolution and no I/O; the core's `exclusionFields` (core/export/configDocument.ts) turns the list into
 * the QuantConfig fields the core reads.
 *
 * The list belongs to one model: when another model opens, the list is put aside under the old model's key
 * (`byModel`) and the new model's own list, if it had one earlier in the session, comes back.
 */
import type { StateCreator } from 'zustand';
import type { NodeId } from '../../core/onnx/model.ts';

export type ExclusionEntry =
  /** `toFp32`: of the FP16→FP32 list (float16 models), not kept float (see core NamedExclusion). */
  | { id: string; kind: 'subgraph'; name: string; starts: NodeId[]; ends: NodeId[]; toFp32?: boolean }
  | { id: string; kind: 'nodes'; name: string; nodes: NodeId[] }
  | { id: string; kind: 'opTypes'; name: string; opTypes: string[] };

/** Omit over each member of a union (the built-in Omit would merge the members into one shape). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An entry as the user makes it; the slice gives it its id. */
export type NewExclusion = DistributiveOmit<ExclusionEntry, 'id'>;

export type ExclusionKind = ExclusionEntry['kind'];

export interface ExclusionState {
  entries: ExclusionEntry[];
  /** Id of the entry under the pointer (or keyboard focus); its nodes are highlighted. */
  hovered: string | null;
  /** The lists of models opened before, by model key (selectors.ts modelKey), for when they are reopened. */
  byModel: Record<string, NewExclusion[]>;
}

export interface ExclusionSlice {
  exclusions: ExclusionState;
  /** Adds an entry and returns its new id; a quantized model made without it no longer applies. */
  addExclusion(entry: NewExclusion): string;
  removeExclusion(id: string): void;
  hoverExclusion(id: string | null): void;
  /** Replaces the whole list (JSON import, session restore). */
  replaceExclusions(entries: NewExclusion[]): void;
  /**
   * Another model is open: the current list is kept under `leaving` (when a model is left) and the list kept
   * under `arriving` becomes the current one (empty when that model had none). Returns how many entries came back.
   */
  switchExclusionModel(leaving: string | null, arriving: string | null): number;
  /** The kept lists of other models (a restored session); the current list is left as it is. */
  setExclusionsByModel(byModel: Record<string, NewExclusion[]>): void;
}

export const emptyExclusionState: ExclusionState = { entries: [], hovered: null, byModel: {} };

/** An entry without its id, as it is kept for later. */
export const withoutId = ({ id: _id, ...entry }: ExclusionEntry): NewExclusion => entry as NewExclusion;

/** A copy of an entry's own fields (nothing the caller holds is kept by reference). */
function copyEntry(entry: NewExclusion, id: string): ExclusionEntry {
  switch (entry.kind) {
    case 'subgraph':
      return {
        id,
        kind: 'subgraph',
        name: entry.name,
        starts: [...entry.starts],
        ends: [...entry.ends],
        ...(entry.toFp32 ? { toFp32: true } : {}),
      };
    case 'nodes':
      return { id, kind: 'nodes', name: entry.name, nodes: [...entry.nodes] };
    case 'opTypes':
      return { id, kind: 'opTypes', name: entry.name, opTypes: [...entry.opTypes] };
  }
}

/**
 * What the exclusion list reads from the run slice and asks of it (a quantized model made under another list
 * is stale), named here so that the two slices do not import each other.
 */
interface RunPort {
  readonly run: { readonly result: unknown; readonly status: string };
  clearRunResult(): void;
}

export function createExclusionSlice<S extends ExclusionSlice & RunPort>(): StateCreator<S, [], [], ExclusionSlice> {
  let next = 1;
  const newId = () => `exclusion-${next++}`;

  return (set, get) => {
    const setExclusions = (patch: Partial<ExclusionState>) =>
      set((s) => ({ exclusions: { ...s.exclusions, ...patch } }) as Partial<S>);
    // A quantized model made under another list is stale; drop it (and any run in flight).
    const listChanged = (entries: ExclusionEntry[], hovered: string | null) => {
      setExclusions({ entries, hovered });
      if (get().run.result || get().run.status === 'running') get().clearRunResult();
    };

    return {
      exclusions: emptyExclusionState,

      addExclusion(entry) {
        const id = newId();
        const { entries, hovered } = get().exclusions;
        listChanged([...entries, copyEntry(entry, id)], hovered);
        return id;
      },

      removeExclusion(id) {
        const { entries, hovered } = get().exclusions;
        if (!entries.some((e) => e.id === id)) return;
        listChanged(
          entries.filter((e) => e.id !== id),
          hovered === id ? null : hovered,
        );
      },

      hoverExclusion(id) {
        const { entries, hovered } = get().exclusions;
        const target = id !== null && entries.some((e) => e.id === id) ? id : null;
        if (target !== hovered) setExclusions({ hovered: target });
      },

      replaceExclusions(list) {
        listChanged(
          list.map((e) => copyEntry(e, newId())),
          null,
        );
      },

      switchExclusionModel(leaving, arriving) {
        const { entries, byModel } = get().exclusions;
        const kept = { ...byModel };
        if (leaving !== null) {
          if (entries.length > 0) kept[leaving] = entries.map(withoutId);
          else delete kept[leaving];
        }
        const back = arriving !== null ? (kept[arriving] ?? []) : [];
        setExclusions({ byModel: kept });
        if (back.length > 0 || entries.length > 0) get().replaceExclusions(back);
        return back.length;
      },

      setExclusionsByModel(byModel) {
        setExclusions({ byModel: { ...byModel } });
      },
    };
  };
}
