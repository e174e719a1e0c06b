/**
 * The recognizer's independent judge for a model written elsewhere (e.g. by `qstudio quantize --mixed-precision`):
 * onnxruntime-node runs the written file and the float PP-OCRv4 recognizer on text lines 16–31 of
 * ../shared/fixtures/images/textlines (held out: never calibrated or searched on), and the same text judge as
 * bench/cases/recognizer.ts compares their greedy CTC decodings. So a CLI run can be scored exactly as the suite's
 * rows are. Usage: recognizerJudge.ts <written.onnx> [calibration]   ('calibration' judges lines 00–15 instead)
 */
import fs from 'node:fs';
import { encode, decode } from '../../src/core/onnx/index.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles } from './recognizerSetup.ts';

const [written, split = 'held-out'] = process.argv.slice(2);
if (!written) throw new Error('usage: recognizerJudge.ts <written.onnx> [calibration]');
const { calibration, evaluation } = textLineFiles();
const lines = split === 'calibration' ? calibration : evaluation;
const judge = await createTextJudge(encode(decode(fs.readFileSync(RECOGNIZER_PATH))), lines);
const { kl: _kl, ...text } = await judge(new Uint8Array(fs.readFileSync(written)));
console.log(JSON.stringify({ model: written, lines: split === 'calibration' ? '00–15' : '16–31', ...text }));
