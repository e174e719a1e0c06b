/**
 * The PP-OCRv4 recognizer's stem output equalized before 8-bit quantization (issue 36 point 5). The stem's output
 * batch_norm_2.tmp_2 (Conv → BatchNormalization → depthwise Conv) has channels whose largest magnitude on text lines
 * 00–15 runs from 1.1 to 24.9, on one per-tensor activation grid. Channel i of the BatchNormalization's scale and shift
 * is divided by s_i and row i of the depthwise weight multiplied by s_i, s_i = min(1, (margin · r_i / r_max)^alpha):
 * the float function is the same (checked on one line), per-channel weights see the same relative grid, and every
 * channel comes closer to the widest one's range. Then A8W8 per channel with the attention rules, symmetric and
 * asymmetric activations, ranges by each of `methods` on lines 00–15, beside the model as it is; judged held in (lines
 * 00–15, 'all') and held out (16–31, 'all' and 'basic') by onnxruntime-node on the written bytes, every tensor at 8
 * bits; the KL also with the model's output Softmax at 16 bits ("wide"), whose fixed [0, 1] grid otherwise dominates it.
 * With `every=1`, every tensor read only by depthwise convolutions that can be rescaled where it is made: the stem's
 * BatchNormalization, and the blocks' HardSwish + scalar affine (Add(Mul(h, a), b), whose a and b become per channel).
 * Usage: recognizerStemEqualize.ts [alpha=1] [margin=1] [methods=MinMSE,MinMax] [sym=0,1] [every=1]   (JSON lines)
 */
import { decode, encode } from '../../src/core/onnx/index.ts';
import fs from 'node:fs';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import type { ModelProto, NodeProto } from '../../src/core/onnx/model.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { exposeOnly } from '../../src/core/calibrate/run/expose.ts';
import { createSession } from '../../src/cli/runtime/ortNode.ts';
import { makeTensor, readTensorAsFloat32 } from '../../src/core/onnx/tensorData.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseClock, caseOption } from './caseArguments.ts';

const alpha = Number(caseOption('alpha') ?? 1);
const margin = Number(caseOption('margin') ?? 1);
const clock = caseClock();
const STEM_OUTPUT = 'batch_norm_2.tmp_2';
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const lines = calibration.map(textLineTensor);
const opType = (n: NodeProto) => (n as unknown as { op_type: string }).op_type;
const producerOf = (m: ModelProto, t: string) => m.graph!.node.find((n) => n.output.includes(t));
const readersOf = (m: ModelProto, t: string) => m.graph!.node.filter((n) => n.input.includes(t));
const isDepthwise = (n: NodeProto) =>
  opType(n) === 'Conv' && Number(n.attribute.find((a) => a.name === 'group')?.i ?? 1) > 1;
const constantOf = (m: ModelProto, t: string) => {
  const p = producerOf(m, t);
  return p && opType(p) === 'Constant' && readersOf(m, t).length === 1 ? p.attribute[0] : undefined;
};

/**
 * A tensor read only by depthwise convolutions whose channels can be rescaled where it is made: a
 * BatchNormalization's output (its scale and shift), or an affine Add(Mul(h, a), b) with constant a and b (made
 * per channel). `every=1` takes every such tensor; otherwise the stem's output only.
 */
function rescalable(m: ModelProto): { tensor: string; params: string[] }[] {
  const found: { tensor: string; params: string[] }[] = [];
  for (const node of m.graph!.node) {
    const t = node.output[0];
    const readers = readersOf(m, t);
    if (readers.length === 0 || !readers.every(isDepthwise)) continue;
    if (opType(node) === 'BatchNormalization') found.push({ tensor: t, params: [node.input[1], node.input[2]] });
    else if (opType(node) === 'Add') {
      const mul = node.input.map((i) => producerOf(m, i)).find((p) => p && opType(p) === 'Mul');
      const shift = node.input.find((i) => constantOf(m, i));
      const scale = mul?.input.find((i) => constantOf(m, i));
      if (mul && shift && scale && readersOf(m, mul.output[0]).length === 1)
        found.push({ tensor: t, params: [scale, shift] });
    }
  }
  return caseOption('every') === '1' ? found : found.filter((f) => f.tensor === STEM_OUTPUT);
}
const targets = rescalable(model);

// Each channel's largest magnitude of those tensors on lines 00–15 (float model, those tensors alone).
const probe = await createSession(
  encode(
    exposeOnly(
      model,
      targets.map((t) => t.tensor),
    ),
  ),
  0,
  'basic',
);
const largest = new Map<string, Float64Array>();
for (const x of lines) {
  const out = await probe.run({ x });
  for (const { tensor } of targets) {
    const t = out[tensor];
    const [, channels, h, w] = t.dims as number[];
    const data = t.data as Float32Array;
    const l = largest.get(tensor) ?? new Float64Array(channels);
    largest.set(tensor, l);
    for (let c = 0; c < channels; c++)
      for (let k = c * h * w; k < (c + 1) * h * w; k++) l[c] = Math.max(l[c], Math.abs(data[k]));
  }
}
const factors = new Map(
  targets.map(({ tensor }) => {
    const l = largest.get(tensor)!;
    const widest = Math.max(...l);
    return [tensor, [...l].map((r) => Math.min(1, Math.pow((margin * r) / widest, alpha)))];
  }),
);
console.error(`rescaled: ${targets.map((t) => t.tensor).join(' ')}`);

/** The model with those channels rescaled: channel i divided by s_i where it is made, row i of each depthwise weight multiplied. */
function equalized(): ModelProto {
  const m = decode(fs.readFileSync(RECOGNIZER_PATH));
  for (const { tensor, params } of targets) {
    const s = factors.get(tensor)!;
    for (const name of params) {
      const a = constantOf(m, name)!;
      const t = a.t!;
      const v = readTensorAsFloat32(t);
      // A scalar (or one value) becomes one value per channel, [C, 1, 1] against [N, C, H, W].
      const perChannel = v.length === 1 ? Float32Array.from(s, (f) => v[0] / f) : v.map((x, c) => x / s[c]);
      const dims = v.length === 1 ? [s.length, 1, 1] : t.dims!.map(Number);
      a.t = makeTensor(t.name ?? '', t.data_type!, dims, perChannel);
    }
    for (const reader of readersOf(m, tensor)) {
      const a = constantOf(m, reader.input[1])!;
      const t = a.t!;
      const perRow = t.dims!.slice(1).reduce((p, d) => p * Number(d), 1);
      a.t = makeTensor(
        t.name ?? '',
        t.data_type!,
        t.dims!.map(Number),
        readTensorAsFloat32(t).map((w, k) => w * s[Math.floor(k / perRow)]),
      );
    }
  }
  return m;
}
const equal = equalized();
const floatBytes = encode(model);
{
  const a = await createSession(floatBytes, 0, 'basic');
  const b = await createSession(encode(equal), 0, 'basic');
  const ya = Object.values(await a.run({ x: lines[0] }))[0].data as Float32Array;
  const yb = Object.values(await b.run({ x: lines[0] }))[0].data as Float32Array;
  console.error(
    'float output, largest difference after equalizing',
    ya.reduce((d, v, i) => Math.max(d, Math.abs(v - yb[i])), 0),
  );
}
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
for (const symmetric of (caseOption('sym') ?? '0,1').split(',').map((v) => v === '1'))
  for (const method of (caseOption('methods') ?? 'MinMSE,MinMax').split(',') as CalibrationMethod[])
    for (const [label, m] of [
      ['equalized', equal],
      ['as is', model],
    ] as const) {
      const config = withOptions(getPreset('A8W8'), {
        perChannel: true,
        enableNpuTransformer: true,
        calibrationMethod: method,
        extraOptions: { ...getPreset('A8W8').extraOptions, ActivationSymmetric: symmetric },
      });
      const { ranges } = await calibrateOnTensors(m, lines, { config });
      const q = quantizeModel(m, ranges, config);
      const bytes = encode(q.model);
      const outputSoftmax = precisionUnits(q, config).act16.filter((u) =>
        m.graph!.output.some((o) => u.names.includes(o.name ?? '')),
      );
      const wide = encode(quantizeModel(m, ranges, withUnits(config, outputSoftmax)).model);
      console.log(
        JSON.stringify({
          label: `${label} (${targets.length} tensors), ${method}, ${symmetric ? 'symmetric' : 'asymmetric'}, alpha ${alpha}, margin ${margin}`,
          heldIn: await heldIn(bytes),
          heldInKlOutputWide: (await heldIn(wide)).kl,
          heldOutAll: await heldOut.all(bytes),
          heldOutBasic: await heldOut.basic(bytes),
          heldOutKlOutputWide: (await heldOut.all(wide)).kl,
          ...clock(),
        }),
      );
    }
