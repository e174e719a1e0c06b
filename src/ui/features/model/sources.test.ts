import { describe, expect, it } from 'vitest';
import { sourceFromFiles } from './sources.ts';

const file = (name: string, text = 'x') => new File([text], name);

async function failureName(files: File[]): Promise<string> {
  return sourceFromFiles(files)!.read().then(() => 'no error', (e: Error) => e.name);
}

describe('sourceFromFiles', () => {
  it('gives nothing to open for no files', () => {
    expect(sourceFromFiles([])).toBeNull();
  });

  it('opens a single .onnx file', async () => {
    const source = sourceFromFiles([file('m.onnx', 'abc')])!;
    expect(source).toMatchObject({ fileName: 'm.onnx', byteLength: 3 });
    const { bytes, externalFiles } = await source.read();
    expect(bytes.byteLength).toBe(3);
    expect(externalFiles).toEqual({});
  });

  it('takes the .onnx among several files as the model and the rest as external data by name', async () => {
    const source = sourceFromFiles([file('weights.bin', 'wwww'), file('Model.ONNX', 'mm'), file('model.onnx.data', 'ddddd')])!;
    expect(source.fileName).toBe('Model.ONNX');
    const { bytes, externalFiles } = await source.read();
    expect(bytes.byteLength).toBe(2);
    expect(Object.fromEntries(Object.entries(externalFiles).map(([k, v]) => [k, v.byteLength]))).toEqual({ 'weights.bin': 4, 'model.onnx.data': 5 });
  });

  it('still tries a single file of another name (the decoder says what it is)', () => {
    expect(sourceFromFiles([file('photo.png')])!.fileName).toBe('photo.png');
  });

  it('refuses several files without a model, and two models at once, by name', async () => {
    expect(await failureName([file('a.bin'), file('b.bin')])).toBe('NoModelFileError');
    expect(await failureName([file('a.onnx'), file('b.onnx')])).toBe('MultipleModelsError');
  });
});
