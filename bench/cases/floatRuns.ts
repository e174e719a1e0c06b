/**
 * What a calibration's cost is set against: plain float runs of a model on a folder of samples, preprocessed as
 * `qstudio quantize --preprocess auto` does (dataFeeds.ts, the file's name among the evidence), in one
 * onnxruntime-node session at 'all' whose pool threads do not spin between runs (as the command's own sessions).
 * Prints the runs' process CPU seconds and wall seconds, the session's build apart. Usage: floatRuns.ts <model.onnx> <folder>
 */
import { readModelFile } from '../../src/cli/modelFile.ts';
import { folderFeeds } from '../../src/cli/data/dataFeeds.ts';
import { createSession } from '../../src/cli/runtime/ortNode.ts';

const [file, folder] = process.argv.slice(2);
if (!file || !folder) throw new Error('usage: floatRuns.ts <model.onnx> <folder>');
const { model, fileName } = readModelFile(file);
const { feeds } = folderFeeds(model, folder, 'auto', { fileName });
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const session = await createSession(file, 0, 'all', false);
const cpu = cpuSeconds();
const wall = performance.now();
for (const f of feeds) await session.run(f);
console.log(
  `${feeds.length} float runs: ${(cpuSeconds() - cpu).toFixed(2)} CPU s, ${((performance.now() - wall) / 1000).toFixed(2)} s wall`,
);
await session.release();
