/**
 * ONNX's own backend test corpus (Debian's libonnx-testdata, ONNX 1.12: 1,072 small models, each with a
 * test_data_set folder of input_k.pb files), installed by scripts/ensure-system-deps.sh. The models cover
 * corners real exporters produce (LayerNormalization written out with int64 shape arithmetic, ops with outputs of
 * several element types, symbolic and empty shapes): the quantizer and the open path are run on all of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeTensor, type TensorSummary } from '../../src/core/onnx/index.ts';
import { tensorFromProto, type Feeds } from '../../src/cli/runtime/ortNode.ts';

/** Where dpkg puts the corpus (`dpkg -L libonnx-testdata`); QS_ONNX_TESTDATA points elsewhere. */
export const CORPUS_ROOT = process.env.QS_ONNX_TESTDATA ?? '/usr/share/libonnx-testdata/data';

export interface CorpusModel {
  /** Relative name: the collection and the test ('node/test_maxpool_with_argmax_2d_precomputed_pads'). */
  readonly name: string;
  readonly dir: string;
  readonly modelPath: string;
}

/** Every model of the corpus, sorted by name (node/, pytorch-converted/, pytorch-operator/, simple/). */
export function corpusModels(root = CORPUS_ROOT): CorpusModel[] {
  if (!fs.existsSync(root)) {
    throw new Error(
      `ONNX's test corpus is not at ${root}: run scripts/ensure-system-deps.sh (it installs libonnx-testdata)`,
    );
  }
  const models: CorpusModel[] = [];
  for (const collection of fs.readdirSync(root).sort()) {
    const base = path.join(root, collection);
    if (!fs.statSync(base).isDirectory()) continue;
    for (const test of fs.readdirSync(base).sort()) {
      const modelPath = path.join(base, test, 'model.onnx');
      if (fs.existsSync(modelPath))
        models.push({ name: `${collection}/${test}`, dir: path.join(base, test), modelPath });
    }
  }
  return models;
}

/**
 * The model's own test inputs: one record of feeds per test_data_set_* folder, input_k.pb feeding the
 * k-th real graph input (as ONNX's backend test runner pairs them).
 */
export function testSetFeeds(model: CorpusModel, inputs: readonly TensorSummary[]): Feeds[] {
  const sets = fs
    .readdirSync(model.dir)
    .filter((d) => d.startsWith('test_data_set_'))
    .sort();
  return sets.map((set) =>
    Object.fromEntries(
      inputs.map((input, k) => {
        const file = path.join(model.dir, set, `input_${k}.pb`);
        return [input.name, tensorFromProto(decodeTensor(fs.readFileSync(file), `${model.name}/${set}/input_${k}.pb`))];
      }),
    ),
  );
}
