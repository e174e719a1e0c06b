/**
 * `qstudio inspect <model.onnx> [--json] [--data <file>...]`: the model summary the page shows after a
 * drop, as text or JSON. External data files are found beside the model or given with --data.
 */
import path from 'node:path';
import { openModel, type ModelSummary } from '../../core/onnx/index.ts';
import { loadExternalFiles } from '../modelFile.ts';
import { formatBytes, formatCount, formatShape } from '../format.ts';
import { parse, readInputFile, UsageError } from '../usage.ts';

const usage = `Usage: qstudio inspect <model.onnx> [--json] [--data <file>]...

Prints what is in a model: IR version, opsets, inputs and outputs with their shapes, op types,
weights, and whether it is already quantized or uses custom ops.

Options:
  --json         print the summary as JSON (the same data the page shows)
  --data <file>  an external data file of the model (default: those it names, beside the model)`;

/** The summary as text; `dataBytes` are the bytes of the model's external-data files (0: none). */
export function printSummary(s: ModelSummary, dataBytes = 0): string {
  const lines: string[] = [];
  const opsets = s.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ');
  const total = dataBytes > 0 ? `; ${formatBytes(s.byteLength + dataBytes)}, external data included` : '';
  lines.push(`${s.fileName}  (${formatBytes(s.byteLength)}${total})`);
  lines.push(`  IR version ${s.irVersion}; opsets: ${opsets}${s.producer ? `; producer: ${s.producer}` : ''}`);
  lines.push('');
  lines.push('Inputs');
  for (const t of s.inputs) lines.push(`  ${t.name}  ${t.elemType}[${formatShape(t.shape)}]`);
  lines.push('Outputs');
  for (const t of s.outputs) lines.push(`  ${t.name}  ${t.elemType}[${formatShape(t.shape)}]`);
  lines.push('');
  const sub = s.subgraphNodeCount ? ` (+${formatCount(s.subgraphNodeCount)} in subgraphs)` : '';
  lines.push(`Nodes: ${formatCount(s.nodeCount)}${sub}, ${formatCount(s.unnamedNodeCount)} unnamed`);
  const width = Math.max(...s.ops.map((o) => (o.domain ? `${o.domain}.` : '').length + o.opType.length), 4);
  for (const o of s.ops)
    lines.push(`  ${`${o.domain ? `${o.domain}.` : ''}${o.opType}`.padEnd(width)}  ${String(o.count).padStart(5)}`);
  lines.push('');
  lines.push(`Weights: ${formatCount(s.parameterCount)} values, ${formatBytes(s.parameterBytes)}`);
  for (const w of s.weightTypes)
    lines.push(`  ${w.elemType.padEnd(9)} ${String(w.tensors).padStart(5)} tensors  ${formatCount(w.elements)} values`);
  lines.push(`Quantization: ${s.quantization.state}${s.float16 ? ', float16' : ''}`);
  if (s.notes.length) {
    lines.push('');
    for (const n of s.notes) lines.push(`Note: ${n}`);
  }
  return lines.join('\n') + '\n';
}

export const inspectCommand = {
  summary: 'print what is in a model (shapes, ops, weights, quantization)',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      json: { type: 'boolean', default: false },
      data: { type: 'string', multiple: true, default: [] },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    const modelPath = positionals[0];
    const bytes = readInputFile(modelPath);
    const externalData = loadExternalFiles(modelPath, bytes, values.data as string[]);
    const { summary } = openModel(bytes, { fileName: path.basename(modelPath), externalData });
    const dataBytes = [...externalData.values()].reduce((n, d) => n + d.byteLength, 0);
    process.stdout.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : printSummary(summary, dataBytes));
    return 0;
  },
};
