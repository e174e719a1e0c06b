import { afterEach, describe, expect, it } from 'vitest';
import { encode } from '../../src/core/onnx/index.ts';
import { buildGraphIndex } from '../../src/core/onnx/graphIndex.ts';
import { buildGraphView } from '../../src/core/graph/graphView.ts';
import { elementTypeName } from '../../src/core/onnx/elementTypes.ts';
import { tensorSummary } from '../../src/core/onnx/modelSummary.ts';
import { weightlessGraph } from '../../src/core/graph/structure.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';
import { modelApi } from './modelApi.ts';
import { paneApi } from './paneApi.ts';

const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;

describe('the graph pane of the held model, made in the model worker', () => {
  let handle: string | null = null;
  afterEach(() => {
    if (handle) modelApi.close(handle);
    handle = null;
  });

  it('folds a QDQ model and lays it out as the page would from the structure, reporting its phases', async () => {
    const bytes = encode(quantizedFixture('yolox-nano.onnx'));
    handle = (await modelApi.open(buffer(bytes), 'q.onnx')).handle;
    const phases: string[] = [];
    const pane = paneApi.graphPane(handle, {}, (f, phase) => phases.push(phase));
    // What the page built before: the view of the weight-less structure, on the page.
    const onPage = buildGraphView(buildGraphIndex(weightlessGraph(modelApi.graphStructure(handle))));
    expect(pane.view).not.toHaveProperty('index');
    expect(pane.view.boxes).toEqual(onPage.boxes);
    expect(pane.view.edges.map((e) => e.label)).toEqual(onPage.edges.map((e) => e.label));
    expect(pane.view.edges.some((e) => /^u?int8 · scale /.test(e.label))).toBe(true);
    expect(Array.from(pane.view.boxOfNode)).toEqual(Array.from(onPage.boxOfNode));
    expect(pane.view.qdq?.qdqNodes).toBe(onPage.qdq?.qdqNodes);
    expect(pane.view.qdqFolded).toBe(true);
    expect(pane.layout.x.length).toBe(pane.view.boxes.length);
    expect(phases[0]).toBe('folding Q/DQ onto edges');
    expect(phases.at(-1)).toMatch(/^laying out [\d,]+ boxes: done$/);
  });

  it('crosses to the page by structured cloning, every weight and value info described as the inspector reads it', async () => {
    const model = quantizedFixture('yolox-nano.onnx');
    handle = (await modelApi.open(buffer(encode(model)), 'q.onnx')).handle;
    const sent = structuredClone(paneApi.graphPane(handle).view);
    const graph = model.graph!;
    expect(graph.initializer.length).toBeGreaterThan(100);
    for (const t of graph.initializer)
      expect(sent.tensorInfo.get(t.name!)).toEqual({
        name: t.name,
        elemType: elementTypeName(t.data_type),
        shape: t.dims,
      });
    for (const v of [...graph.input, ...graph.output, ...graph.value_info])
      if (!graph.initializer.some((t) => t.name === v.name))
        expect(sent.tensorInfo.get(v.name!)).toEqual(tensorSummary(v));
    // The view made where it is read (the page's own, a split pane's) answers the same, description by description.
    const made = buildGraphView(buildGraphIndex(model.graph!));
    for (const [name, info] of sent.tensorInfo) expect(made.tensorInfo.get(name)).toEqual(info);
  });

  it('shows Q/DQ as nodes when asked, and a float model is not folded', async () => {
    handle = (await modelApi.open(buffer(encode(quantizedFixture('yolox-nano.onnx'))), 'q.onnx')).handle;
    const folded = paneApi.graphPane(handle);
    const shown = paneApi.graphPane(handle, { showQdq: true });
    expect(shown.view.qdqFolded).toBe(false);
    expect(shown.view.boxes.length).toBeGreaterThan(folded.view.boxes.length);
    modelApi.close(handle);
    handle = (await modelApi.open(buffer(readModel('mnist.onnx')), 'mnist.onnx')).handle;
    const phases: string[] = [];
    const float = paneApi.graphPane(handle, {}, (f, phase) => phases.push(phase));
    expect(float.view.qdq).toBeNull();
    expect(phases[0]).toBe('building the view');
  });
});
