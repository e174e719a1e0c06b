import { describe, expect, it } from 'vitest';
import { decode } from './decode.ts';
import { encode } from './encode.ts';
import { convReluModel } from '../quantize/testModels.ts';

describe('decode: files that are not models, by name', () => {
  const failure = (bytes: Uint8Array) => {
    try {
      decode(bytes, { fileName: 'x.onnx' });
    } catch (e) {
      return { name: (e as Error).name, message: (e as Error).message };
    }
    return null;
  };

  it('a text file renamed .onnx is said to be text, not a protobuf wire-type error', () => {
    const text = new TextEncoder().encode('Notes on the model\n\tinputs: x [1, 3, 224, 224]\r\nÉtat: brouillon ✓\n');
    expect(failure(text)).toEqual({ name: 'NotOnnxError', message: '"x.onnx" is a text file, not an ONNX model' });
  });

  it('a model is not taken for text, and binary junk still names the parse failure', () => {
    expect(failure(encode(convReluModel()))).toBeNull();
    const junk = Uint8Array.of(0x01, 0xff, 0x00, 0x13, 0x37, 0x42);
    expect(failure(junk)).toMatchObject({ name: 'NotOnnxError', message: expect.stringMatching(/does not parse/) });
  });
});
