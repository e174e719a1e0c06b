import { describe, expect, it } from 'vitest';
import { PAGE_MODEL_LIMIT_BYTES, sourceFromFiles } from './modelSources.ts';

const file = (name: string, text = 'x') => new File([text], name);

async function failureName(files: File[]): Promise<string> {
  return sourceFromFiles(files)!
    .read()
    .then(
      () => 'no error',
      (e: Error) => e.name,
    );
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
    const source = sourceFromFiles([
      file('weights.bin', 'wwww'),
      file('Model.ONNX', 'mm'),
      file('model.onnx.data', 'ddddd'),
    ])!;
    expect(source.fileName).toBe('Model.ONNX');
    const { bytes, externalFiles } = await source.read();
    expect(bytes.byteLength).toBe(2);
    expect(Object.fromEntries(Object.entries(externalFiles).map(([k, v]) => [k, v.size]))).toEqual({
      'weights.bin': 4,
      'model.onnx.data': 5,
    });
  });

  it('still tries a single file of another name (the decoder says what it is)', () => {
    expect(sourceFromFiles([file('photo.png')])!.fileName).toBe('photo.png');
  });

  it("refuses a model that cannot fit in the page's WebAssembly memory before reading a byte", async () => {
    let read = false;
    const huge = (name: string, size: number) =>
      ({
        name,
        size,
        arrayBuffer: () => {
          read = true;
          return Promise.resolve(new ArrayBuffer(0));
        },
      }) as unknown as File;
    const source = sourceFromFiles([huge('big.onnx', 2 ** 20), huge('big.onnx.data', PAGE_MODEL_LIMIT_BYTES)])!;
    await expect(source.read()).rejects.toMatchObject({
      name: 'ModelTooLargeError',
      message: expect.stringMatching(
        /3\.7\d GiB with its data files; onnxruntime-web would need about 3\.7\d GiB.*npx qstudio quantize/,
      ),
    });
    expect(read).toBe(false);
    expect(
      sourceFromFiles([huge('ok.onnx', 2 ** 20), huge('ok.onnx.data', PAGE_MODEL_LIMIT_BYTES - 2 ** 20)])!.fileName,
    ).toBe('ok.onnx');
  });

  it('refuses several files without a model, and two models at once, by name', async () => {
    expect(await failureName([file('a.bin'), file('b.bin')])).toBe('NoModelFileError');
    expect(await failureName([file('a.onnx'), file('b.onnx')])).toBe('MultipleModelsError');
  });
});
