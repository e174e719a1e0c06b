/**
 * Two models side by side (float and quantized, or any two ONNX files): both graphs laid out, the core's node
 * mapping between them (compareModel.ts), the panes following each other: a node selected on one side selects
 * and centres its counterpart on the other; the pane being moved (pan, zoom) drags the other along so the same
 * node stays at the same place. Boxes are filled by their difference mark (added, removed, changed, folded in) or
 * by one per-node value (SQNR, bit width, scale, kept float) on one colour scale for both panes. Two models that
 * share no nodes get a named message, and their panes stay apart.
 *
 * `window.__qsCompare` lets end-to-end tests find a box on a pane and read the selection.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { exact } from '../../components/format.ts';
import { useStudio } from '../../store/index.ts';
import type { GraphRenderer } from '../graph/renderer.ts';
import { heatColour } from '../graph/heat.ts';
import { ComparePane } from './ComparePane.tsx';
import { measuredValues } from './measuredValues.ts';
import {
  compareValueSets,
  MARK_COLOURS,
  MARK_LABELS,
  markColours,
  paintValues,
  type CompareModel,
  type Side,
} from './compareModel.ts';
import './compare.css';

export interface CompareTestHook {
  position(side: Side, id: string): { x: number; y: number } | null;
  selected(side: Side): string | null;
  idle(side: Side): boolean;
  centre(side: Side): { x: number; y: number; zoom: number } | null;
  counterpart(side: Side, id: string): string | null;
  /** Centres a node on its pane, zoomed in enough to read it (as a search jump does). */
  focus(side: Side, id: string): void;
  /** Pans a pane as a drag would (the other pane follows); for the benchmark's frame probe. */
  panBy(side: Side, dx: number, dy: number): void;
  fit(side: Side): void;
}

declare global {
  interface Window {
    __qsCompare?: CompareTestHook;
  }
}

const num = (v: number) =>
  !Number.isFinite(v)
    ? '—'
    : Number.isInteger(v)
      ? String(v)
      : Math.abs(v) < 1e-3
        ? v.toExponential(3)
        : v.toPrecision(4);

export function SplitView({ model, onClose }: { model: CompareModel; onClose(): void }) {
  const { layouts } = model;
  const heat = useStudio((s) => s.graph.heat);
  const evaluation = useStudio((s) => s.evaluation.result);
  // The evaluation measured the open model and its quantization: its values belong to a comparison made from the run.
  const measured = useMemo(
    () => (model.fromRun ? measuredValues(evaluation, heat) : new Map()),
    [model, evaluation, heat],
  );
  const sets = useMemo(() => compareValueSets(model, measured), [model, measured]);
  const [paint, setPaint] = useState<string>('diff');
  const painted = useMemo(
    () => (paint !== 'diff' && sets.has(paint) ? paintValues(model, sets.get(paint)!) : null),
    [model, sets, paint],
  );
  const diffFills = useMemo(() => ({ a: markColours(model, 'a'), b: markColours(model, 'b') }), [model]);
  // The quantization's own mark is listed only where a pane draws such a box (Q/DQ as nodes, a dynamic model).
  const legendMarks = useMemo(
    () =>
      (Object.keys(MARK_LABELS) as (keyof typeof MARK_LABELS)[]).filter(
        (m) => m !== 'quantization' || model.marks.a.includes(m) || model.marks.b.includes(m),
      ),
    [model],
  );
  const fills = painted ? painted.colours : diffFills;
  const [selected, setSelected] = useState({ a: -1, b: -1 });
  const renderers = { a: useRef<GraphRenderer | null>(null), b: useRef<GraphRenderer | null>(null) };
  const driver = useRef<Side>('a');
  const drawn = useRef({ a: false, b: false });
  const { mapping } = model;
  const linked = mapping.related;

  /** Moves the other pane so that the node nearest the driver's centre sits at the same place, at the same zoom. */
  const follow = (from: Side) => {
    if (!linked || from !== driver.current) return;
    const to: Side = from === 'a' ? 'b' : 'a';
    const source = renderers[from].current,
      target = renderers[to].current;
    if (!source || !target) return;
    const c = source.viewCentre();
    const lf = layouts[from],
      lt = layouts[to];
    let best = -1,
      bestD = Infinity;
    const counterpart = model.counterpart[from];
    for (let i = 0; i < counterpart.length; i++) {
      if (counterpart[i] < 0) continue;
      const d = (lf.x[i] - c.x) ** 2 + (lf.y[i] - c.y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    if (best < 0) return;
    const j = counterpart[best];
    target.centreOn(lt.x[j] + (c.x - lf.x[best]), lt.y[j] + (c.y - lf.y[best]), c.zoom);
  };

  const select = (side: Side, box: number) => {
    driver.current = side;
    const other: Side = side === 'a' ? 'b' : 'a';
    const counterpart = box >= 0 && linked ? model.counterpart[side][box] : -1;
    setSelected(side === 'a' ? { a: box, b: counterpart } : { a: counterpart, b: box });
    if (counterpart >= 0) {
      const target = renderers[other].current;
      const zoom = target?.viewCentre().zoom ?? 1;
      target?.centreOn(layouts[other].x[counterpart], layouts[other].y[counterpart], Math.max(zoom, 0.8));
      // Put the picked box at the centre of its own pane too, so both sit at the same place.
      const own = renderers[side].current;
      own?.centreOn(layouts[side].x[box], layouts[side].y[box], Math.max(zoom, 0.8));
    }
  };

  useEffect(() => {
    const idOf = (side: Side, box: number) => (box >= 0 ? model.views[side].boxes[box].id : null);
    window.__qsCompare = {
      position: (side, id) => {
        const b = model.views[side].boxById.get(id);
        return b === undefined ? null : (renderers[side].current?.clientPosition(b) ?? null);
      },
      selected: (side) => idOf(side, selected[side]),
      idle: (side) => renderers[side].current?.idle ?? false,
      centre: (side) => renderers[side].current?.viewCentre() ?? null,
      panBy: (side, dx, dy) => {
        driver.current = side;
        renderers[side].current?.panBy(dx, dy);
      },
      fit: (side) => renderers[side].current?.fit(),
      focus: (side, id) => {
        const b = model.views[side].boxById.get(id);
        if (b !== undefined) renderers[side].current?.focus(b);
      },
      counterpart: (side, id) => {
        const b = model.views[side].boxById.get(id);
        return b === undefined ? null : idOf(side === 'a' ? 'b' : 'a', model.counterpart[side][b]);
      },
    };
    return () => {
      delete window.__qsCompare;
    };
  });

  const counts = mapping.counts;
  return (
    <section
      className="compare"
      data-testid="compare-view"
      data-compare-status="ready"
      data-related={linked ? 'true' : 'false'}
    >
      <div className="compare__toolbar">
        <strong className="small">Compare</strong>
        <span className="small" data-testid="compare-counts">
          {exact(mapping.common)} nodes in common · {counts.changed} changed · {counts.merged} folded in ·{' '}
          {counts.removed} only in {model.names.a} · {counts.added} only in {model.names.b}
        </span>
        <label className="small">
          Paint{' '}
          <select
            className="select select--inline"
            value={paint}
            onChange={(e) => setPaint(e.target.value)}
            data-testid="compare-paint"
          >
            <option value="diff">differences</option>
            {[...sets].map(([k, s]) => (
              <option key={k} value={k}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button button--small" onClick={onClose} data-testid="compare-close">
          Close comparison
        </button>
      </div>
      {!linked && (
        <Callout kind="warning" testId="compare-unrelated" title="No common nodes">
          <p>
            {model.names.a} and {model.names.b} share{' '}
            {mapping.common === 0 ? 'no nodes' : `only ${mapping.common} node${mapping.common === 1 ? '' : 's'}`}: by
            name, by tensor or by structure they look like different models. The panes are shown apart, without
            following each other.
          </p>
        </Callout>
      )}
      {painted ? (
        <div className="heat-legend small" data-testid="compare-value-legend">
          <strong>{sets.get(paint)!.label}</strong> on both panes, one scale: {num(painted.min)}
          <span
            className="heat-legend__bar"
            style={{
              background: `linear-gradient(to right, ${[0, 0.5, 1].map((q) => heatColour(sets.get(paint)!.higherIsBetter ? q : 1 - q)).join(', ')})`,
            }}
            aria-hidden="true"
          />
          {num(painted.max)}
        </div>
      ) : (
        <ul className="graph-families small compare__legend" aria-label="Difference marks">
          {legendMarks.map((m) => (
            <li key={m}>
              <span className="graph-families__swatch" style={{ background: MARK_COLOURS[m]! }} /> {MARK_LABELS[m]}
            </li>
          ))}
        </ul>
      )}
      <div className="compare__panes">
        {(['a', 'b'] as const).map((side) => (
          <div
            key={side}
            className="compare-pane"
            onPointerDown={() => (driver.current = side)}
            onWheel={() => (driver.current = side)}
          >
            <div className="compare-pane__title small">
              <strong>{model.names[side]}</strong> · {exact(model.views[side].boxes.length)} boxes
            </div>
            <ComparePane
              side={side}
              view={model.views[side]}
              layout={layouts[side]}
              fills={fills[side]}
              selected={selected[side]}
              rendererRef={renderers[side]}
              onTap={(box) => select(side, box)}
              onViewport={() => follow(side)}
              onDrawn={() => {
                drawn.current[side] = true;
                if (drawn.current.a && drawn.current.b) {
                  performance.mark('compare:drawn');
                  document.querySelector('[data-testid="compare-view"]')?.setAttribute('data-compare-drawn', 'true');
                }
              }}
            />
            <SelectionLine
              model={model}
              side={side}
              box={selected[side]}
              value={painted?.values[side][selected[side]]}
            />
          </div>
        ))}
      </div>
    </section>
  );
}

function SelectionLine({
  model,
  side,
  box,
  value,
}: {
  model: CompareModel;
  side: Side;
  box: number;
  value: number | undefined;
}) {
  if (box < 0)
    return (
      <p className="small muted compare-pane__selection" data-testid={`compare-selected-${side}`}>
        Click a node: its counterpart is selected on the other side.
      </p>
    );
  const view = model.views[side];
  const b = view.boxes[box];
  const mark = model.marks[side][box];
  const other = model.counterpart[side][box];
  const otherView = model.views[side === 'a' ? 'b' : 'a'];
  return (
    <p className="small compare-pane__selection" data-testid={`compare-selected-${side}`} data-node-id={b.id}>
      <strong>{b.id}</strong> {b.kind === 'node' ? `(${b.title})` : `(graph ${b.kind})`} ·{' '}
      {mark === 'io' ? 'graph ' + b.kind : mark}
      {other >= 0 ? <> · ↔ {otherView.boxes[other].id}</> : ' · no counterpart'}
      {value !== undefined && !Number.isNaN(value) && <> · value {num(value)}</>}
    </p>
  );
}
