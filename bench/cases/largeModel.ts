/**
 * One size of the `large-model` suite: writes an MLP with `bytes` of weights in external data
 * (bench/largeModel.ts), then does in one process what `qstudio quantize --calib` does: open (read the
 * .onnx and its data file, decode), calibrate (onnxruntime-node sessions over the external data), quantize
 * (XINT8) and write (.onnx + .onnx.data). Prints the seconds of each step and the process's peak RSS after
 * each (peaks only grow: the last is the whole run's). The model is removed afterwards.
 * Usage: node --import tsx bench/cases/largeModel.ts <bytes> <calibration image>...
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeLargeModel } from '../largeModel.ts';
import { readModelFile, writeModelFile } from '../../src/cli/modelFile.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';

const [bytesArg, ...images] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-bench-large-'));
const peakMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const timed = <T>(fn: () => T): [T, number] => {
  const start = performance.now();
  const value = fn();
  return [value, (performance.now() - start) / 1000];
};

try {
  const [files, makeS] = timed(() => writeLargeModel(dir, Number(bytesArg)));
  const afterMake = peakMB();
  const [{ model }, openS] = timed(() => readModelFile(files.onnx));
  const afterOpen = peakMB();
  const config = getPreset('XINT8');
  const calStart = performance.now();
  const calibration = await calibrateOnImages(model, images, { spec: getPreprocessPreset('unit'), config });
  const calibrateS = (performance.now() - calStart) / 1000;
  const afterCalibrate = peakMB();
  const [{ model: quantized }, quantizeS] = timed(() => quantizeModel(model, calibration.ranges, config, 'XINT8'));
  const afterQuantize = peakMB();
  const out = path.join(dir, 'large-mlp.quant.onnx');
  const [dataFile, writeS] = timed(() => writeModelFile(out, quantized, true));
  const afterWrite = peakMB();
  console.log(
    JSON.stringify({
      weightsGB: +(files.dataBytes / 1e9).toFixed(2),
      layers: files.layers,
      makeS: +makeS.toFixed(1),
      openS: +openS.toFixed(1),
      calibrateS: +calibrateS.toFixed(1),
      images: calibration.images,
      quantizeS: +quantizeS.toFixed(1),
      writeS: +writeS.toFixed(1),
      writtenGB: +((fs.statSync(out).size + fs.statSync(dataFile!).size) / 1e9).toFixed(2),
      peakMakeMB: afterMake,
      peakOpenMB: afterOpen,
      peakCalibrateMB: afterCalibrate,
      peakQuantizeMB: afterQuantize,
      peakWriteMB: afterWrite,
    }),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
