/** The report files' names: from the quantized model's name, its ".onnx" in any case. */
import { describe, expect, it } from 'vitest';
import { reportFileName } from './reportFiles.ts';

describe('reportFileName', () => {
  it('replaces the .onnx extension', () => {
    expect(reportFileName('yolox-nano.quant.onnx', 'json')).toBe('yolox-nano.quant.report.json');
    expect(reportFileName('yolox-nano.quant.onnx', 'html')).toBe('yolox-nano.quant.report.html');
  });

  it('replaces it in any case (a "Model.ONNX" file)', () => {
    expect(reportFileName('Model.quant.ONNX', 'json')).toBe('Model.quant.report.json');
    expect(reportFileName('Model.Onnx', 'json')).toBe('Model.report.json');
  });
});
