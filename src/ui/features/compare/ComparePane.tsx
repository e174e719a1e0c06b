/**
 * One pane of the split view: a graph renderer (the graph step's, ui/features/graph/renderer.ts) over a laid-out
 * view, filled with the colours the split view chooses (difference marks or values) and outlining the selection.
 * Taps and viewport moves are reported up; the split view moves the other pane.
 */
import { useEffect, useLayoutEffect, useRef, type MutableRefObject } from 'react';
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { GraphRenderer } from '../graph/renderer.ts';
import { FLAG } from '../graph/flags.ts';
import type { DrawnView } from '../graph/viewModel.ts';

interface Props {
  side: 'a' | 'b';
  view: DrawnView;
  layout: LayoutResult;
  fills: (string | null)[];
  selected: number;
  rendererRef: MutableRefObject<GraphRenderer | null>;
  onTap(box: number): void;
  onViewport(): void;
  onDrawn(): void;
}

export function ComparePane({ side, view, layout, fills, selected, rendererRef, onTap, onViewport, onDrawn }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const events = useRef({ onTap, onViewport, onDrawn });
  events.current = { onTap, onViewport, onDrawn };
  const flagsOf = (box: number) => {
    const flags = new Uint8Array(view.boxes.length);
    if (box >= 0) flags[box] = FLAG.selected;
    return flags;
  };
  const initial = useRef({ flags: flagsOf(selected), heat: fills });

  useLayoutEffect(() => {
    const renderer = new GraphRenderer(
      host.current!,
      view,
      layout,
      {
        onTap: (box) => events.current.onTap(box),
        onBackgroundTap: () => events.current.onTap(-1),
        onDrawn: () => events.current.onDrawn(),
        onViewport: () => events.current.onViewport(),
      },
      initial.current,
    );
    rendererRef.current = renderer;
    return () => {
      if (rendererRef.current === renderer) rendererRef.current = null;
      renderer.destroy();
    };
  }, [view, layout, rendererRef]);

  useEffect(() => {
    rendererRef.current?.setVisualState(flagsOf(selected), fills);
    // flagsOf is rebuilt from `selected` each time; the renderer compares per box.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected, fills, rendererRef]);

  return <div ref={host} className="graph-canvas compare-pane__canvas" data-testid={`compare-canvas-${side}`} />;
}
