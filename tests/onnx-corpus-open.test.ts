/**
 * Opening ONNX's own backend test corpus (1,072 small models, odd corners included) stays clean: every
 * model goes through the page's open path (the model worker's open, the weight-less structure it hands
 * the page, the graph view and its layout) and the summary `qstudio inspect` prints, and re-encodes to a
 * model that opens to the same summary. A sample also goes through the real `qstudio inspect` process.
 *
 * The corpus also checks the element types the quantizer relies on: on a deterministic sample, every
 * tensor onnxruntime-node returns has the type core/onnx/elementTypeInference.ts inferred for it.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import {
  buildGraphIndex,
  decode,
  elementTypeName,
  encode,
  inferElementTypes,
  openModel,
  opsetOf,
} from '../src/core/onnx/index.ts';
import { exposeTensors } from '../src/core/calibrate/run/expose.ts';
import { layeredLayout } from '../src/core/graph/layeredLayout.ts';
import { buildGraphView, layoutInputOf } from '../src/ui/features/graph/viewModel.ts';
import { modelApi } from '../workers/model/modelApi.ts';
import { createSession } from '../src/cli/runtime/ortNode.ts';
import { corpusModels, testSetFeeds } from './helpers/onnxCorpus.ts';
import { qstudio } from './helpers/qstudio.ts';

const models = corpusModels();

/** A fresh ArrayBuffer of the file (what File.arrayBuffer() gives the page). */
function fileBuffer(file: string): ArrayBuffer {
  const bytes = fs.readFileSync(file);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

describe("ONNX's backend test corpus through the open path", () => {
  it('every model opens, summarises, draws and lays out as the page does, and re-encodes to the same summary', async () => {
    const failures: string[] = [];
    for (const m of models) {
      try {
        const { handle, summary } = await modelApi.open(fileBuffer(m.modelPath), path.basename(m.dir));
        try {
          const view = buildGraphView(buildGraphIndex(modelApi.graphStructure(handle)));
          const layout = layeredLayout(layoutInputOf(view));
          if (layout.x.length !== view.boxes.length || !layout.x.every(Number.isFinite))
            failures.push(`${m.name}: layout`);
          const again = openModel(encode(decode(fs.readFileSync(m.modelPath))), {
            fileName: path.basename(m.dir),
          }).summary;
          expect({ ...again, byteLength: 0 }).toEqual({ ...summary, byteLength: 0 });
        } finally {
          modelApi.close(handle);
        }
      } catch (e) {
        failures.push(`${m.name}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`.slice(0, 300));
      }
    }
    expect(failures).toEqual([]);
    expect(models.length).toBeGreaterThanOrEqual(1000);
  }, 300_000);

  it('qstudio inspect prints the same summary as the open path, on a sample', () => {
    const sample = ['node/test_maxpool_with_argmax_2d_precomputed_pads', 'node/test_loop11'];
    for (const name of sample) {
      const m = models.find((x) => x.name === name)!;
      const r = qstudio('inspect', m.modelPath, '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(openModel(fs.readFileSync(m.modelPath), { fileName: 'model.onnx' }).summary);
    }
    const text = qstudio('inspect', models.find((x) => x.name === 'simple/test_sequence_model1')!.modelPath);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/SequenceInsert +3/);
  }, 120_000);

  it('the inferred element type of every tensor agrees with what onnxruntime-node returns (a deterministic third of the corpus)', async () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const m of models.filter((_, i) => i % 3 === 0)) {
      const { model, summary } = openModel(fs.readFileSync(m.modelPath));
      const names = model.graph!.node.flatMap((n) => n.output.filter(Boolean));
      let outputs;
      try {
        const session = await createSession(encode(exposeTensors(model, names)));
        outputs = await session.run(testSetFeeds(m, summary.inputs)[0]);
        await session.release();
      } catch {
        continue; // onnxruntime-node cannot run it as it is (an old op version, a sequence it cannot return…)
      }
      const types = inferElementTypes(model.graph!, { opset: opsetOf(model) ?? 1 });
      for (const name of names) {
        const actual = outputs[name]?.type;
        if (!actual) continue;
        checked++;
        const inferred = types.get(name);
        const expected = inferred === undefined ? 'unknown' : elementTypeName(inferred);
        if (expected !== actual)
          mismatches.push(`${m.name}: ${name} inferred ${expected}, onnxruntime returned ${actual}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  }, 300_000);
});
