/**
 * The graph view's slice: which node is selected (the inspector shows it, the view centres on it),
 * the heat map another screen may lay over the graph (per-node values such as SQNR), and the user's
 * picks while building an exclusion: start and end nodes of a subgraph, or single nodes, and the pick
 * mode a plain click uses. Picks are stable node ids; what they resolve to is the core's business
 * (src/core/exclude), computed by the view, never stored here.
 */
import type { StateCreator } from 'zustand';
import type { NodeId } from '../../core/onnx/model.ts';

/** Values per node to colour the graph by (evaluation: SQNR, cosine, …). */
export interface GraphHeat {
  /** What the values are, with units, e.g. 'SQNR (dB)'. */
  label: string;
  higherIsBetter: boolean;
  values: Record<string /* NodeId */, number>;
}

/** What fills the boxes: their op family (with a heat map when one is set), or their precision in the last quantization. */
export type GraphColouring = 'family' | 'precision';

/** What a plain click on a node does besides selecting it. */
export type PickMode = 'inspect' | 'start' | 'end' | 'node';
/** The roles a pick can have; a click with Shift, Alt or Ctrl/⌘ picks one regardless of the mode. */
export type PickRole = 'start' | 'end' | 'node';

export interface GraphState {
  selected: string | null;
  /** Counts requests to centre the selection, so the view centres again when the same node is asked for twice. */
  focusRequest: number;
  heat: GraphHeat | null;
  colourBy: GraphColouring;
  pickMode: PickMode;
  starts: NodeId[];
  ends: NodeId[];
  nodes: NodeId[];
}

export interface GraphSlice {
  graph: GraphState;
  /**
   * Focus and centre a node in the view and show it in the inspector (null: nothing selected).
   * A click on the graph passes `{ centre: false }`: the node is under the pointer already.
   */
  selectGraphNode(id: string | null, options?: { centre?: boolean }): void;
  /** Lays a heat map over the graph (and shows it: the colouring goes back to families), or takes it off. */
  setGraphHeat(heat: GraphHeat | null): void;
  setGraphColouring(colourBy: GraphColouring): void;
  setPickMode(mode: PickMode): void;
  /** Adds the node to the picks of that role, or takes it out if it is there already. */
  togglePick(role: PickRole, id: NodeId): void;
  /** Forgets every pick (Esc). */
  clearPicks(): void;
  /** A new model: nothing selected or picked, no heat. */
  resetGraph(): void;
}

export const initialGraphState: GraphState = {
  selected: null,
  focusRequest: 0,
  heat: null,
  colourBy: 'family',
  pickMode: 'inspect',
  starts: [],
  ends: [],
  nodes: [],
};

const ROLE_FIELD = { start: 'starts', end: 'ends', node: 'nodes' } as const;

export function createGraphSlice<S extends GraphSlice>(): StateCreator<S, [], [], GraphSlice> {
  return (set, get) => {
    const patch = (p: Partial<GraphState>) => set((s) => ({ graph: { ...s.graph, ...p } }) as Partial<S>);
    return {
      graph: initialGraphState,
      selectGraphNode(id, options) {
        const centre = options?.centre ?? true;
        patch({ selected: id, focusRequest: get().graph.focusRequest + (centre ? 1 : 0) });
      },
      setGraphHeat(heat) {
        patch(heat ? { heat, colourBy: 'family' } : { heat });
      },
      setGraphColouring(colourBy) {
        patch({ colourBy });
      },
      setPickMode(pickMode) {
        patch({ pickMode });
      },
      togglePick(role, id) {
        const field = ROLE_FIELD[role];
        const list = get().graph[field];
        patch({ [field]: list.includes(id) ? list.filter((x) => x !== id) : [...list, id] });
      },
      clearPicks() {
        patch({ starts: [], ends: [], nodes: [] });
      },
      resetGraph() {
        set({ graph: { ...initialGraphState, focusRequest: get().graph.focusRequest } } as Partial<S>);
      },
    };
  };
}
