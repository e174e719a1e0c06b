// Preprocessing against real models: a photo, decoded and preprocessed the way each model's authors
// did, must make the float model find what is in it. A wrong channel order, normalisation or
// letterbox would not crash anything; it would only lower scores, and calibrate on wrong ranges.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decode, tensorSummary, buildGraphIndex } from '../src/core/onnx/index.ts';
import { getPreprocessPreset } from '../src/core/preprocess/presets.ts';
import { imageToTensor } from '../src/core/preprocess/toTensor.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { IMAGES, readModel } from './helpers/fixtures.ts';

function modelInput(name: string) {
  const bytes = readModel(name);
  const index = buildGraphIndex(decode(bytes).graph!);
  return { bytes, input: tensorSummary(index.inputs[0]) };
}

async function runOnPhoto(model: string, photo: string, preset: string) {
  const { bytes, input } = modelInput(model);
  const tensor = imageToTensor(
    decodeImageFile(path.join(IMAGES, 'photos', photo)),
    input.shape ?? [],
    getPreprocessPreset(preset),
    {
      inputName: input.name,
    },
  );
  const session = await createSession(bytes);
  try {
    return { tensor, outputs: await session.run({ [input.name]: float32Tensor(tensor.data, tensor.dims) }) };
  } finally {
    await session.release();
  }
}

/** YOLOX's raw output [1, anchors, 5 + classes]: the best objectness × class score of one class. */
function bestYoloxScore(output: Float32Array, anchors: number, classId: number): number {
  const stride = output.length / anchors;
  let best = 0;
  for (let a = 0; a < anchors; a++) best = Math.max(best, output[a * stride + 4] * output[a * stride + 5 + classId]);
  return best;
}

describe('fixture models on preprocessed photos', () => {
  it('YOLOX-nano with the yolo preset finds the dog, the bicycle and the car in yolox_dog.jpg', async () => {
    const { tensor, outputs } = await runOnPhoto('yolox-nano.onnx', 'yolox_dog.jpg', 'yolo');
    expect(tensor.dims).toEqual([1, 3, 416, 416]);
    // 768×576 scaled by 416/768 is 416×312 at the top-left: the rows below are padding 114 (BGR, 0–255).
    expect(tensor.data[311 * 416]).not.toBe(114);
    expect(tensor.data[312 * 416]).toBe(114);
    expect(tensor.data[2 * 416 * 416 + 415 * 416 + 415]).toBe(114);
    const out = outputs.output;
    expect(out.dims).toEqual([1, 3549, 85]);
    const data = out.data as Float32Array;
    expect(bestYoloxScore(data, 3549, 16)).toBeGreaterThan(0.5); // dog
    expect(bestYoloxScore(data, 3549, 1)).toBeGreaterThan(0.5); // bicycle
    expect(bestYoloxScore(data, 3549, 2)).toBeGreaterThan(0.5); // car
  });

  it.each(['astronaut.png', 'grace_hopper.jpg'])(
    'UltraFace with the ultraface preset finds a face in %s',
    async (photo) => {
      const { tensor, outputs } = await runOnPhoto('ultraface-rfb-320.onnx', photo, 'ultraface');
      expect(tensor.dims).toEqual([1, 3, 240, 320]);
      const scores = outputs.scores;
      expect(scores.dims).toEqual([1, 4420, 2]);
      const data = scores.data as Float32Array;
      let best = 0;
      for (let i = 0; i < 4420; i++) best = Math.max(best, data[2 * i + 1]);
      expect(best).toBeGreaterThan(0.9);
    },
  );
});
