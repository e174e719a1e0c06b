/**
 * The page's own open (openOnPage.ts) against the model worker's (workers/model/modelApi.ts): the same summary and the
 * same structure on every fixture model and a spread of ONNX's test corpus, still whole after the file's buffer
 * has been transferred away (as the page then sends it to the worker); the same named error for bad files; and
 * the worker keeping the model under the page's handle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelApi } from '../../../workers/model/modelApi.ts';
import { corpusModels } from '../../../tests/helpers/onnxCorpus.ts';
import { openOnPage, PAGE_OPEN_BYTES } from './openOnPage.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/models');

/** The file as File.arrayBuffer() gives it: an ArrayBuffer of its own. */
function fileBuffer(file: string): ArrayBuffer {
  const bytes = fs.readFileSync(file);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** What the page keeps of its open after the file's buffer went to the worker (detached here as a transfer does). */
function openedThenTransferred(buffer: ArrayBuffer, fileName: string) {
  const here = openOnPage(buffer, fileName, {});
  structuredClone(buffer, { transfer: [buffer] });
  expect(buffer.byteLength).toBe(0);
  return here;
}

describe('the page opens a small model as the model worker does', () => {
  const files = [
    ...fs
      .readdirSync(FIXTURES)
      .filter((f) => f.endsWith('.onnx'))
      .map((f) => ({ name: f, file: path.join(FIXTURES, f) })),
    { name: 'custom-domain-op.onnx', file: path.join(FIXTURES, 'negative/custom-domain-op.onnx') },
    ...corpusModels()
      .filter((_, i) => i % 10 === 0)
      .map((m) => ({ name: m.name, file: m.modelPath })),
  ];

  it('gives the worker’s summary and structure, whole after the file’s buffer is transferred away', async () => {
    expect(files.length).toBeGreaterThan(100);
    for (const { name, file } of files) {
      const here = openedThenTransferred(fileBuffer(file), name);
      const worker = await modelApi.open(fileBuffer(file), name);
      try {
        expect(here, name).not.toBeNull();
        expect(here!.summary, name).toEqual(worker.summary);
        // As the worker's structure reaches the page: structured-cloned.
        const structure = worker.structure ?? modelApi.graphStructure(worker.handle);
        expect(structuredClone(here!.structure), name).toEqual(structuredClone(structure));
      } finally {
        modelApi.close(worker.handle);
      }
    }
  });

  it.each([
    ['an empty file', 'empty.onnx', () => new ArrayBuffer(0)],
    ['a PNG renamed .onnx', 'not-a-model.onnx', () => fileBuffer(path.join(FIXTURES, 'negative/not-a-model.onnx'))],
    ['a cut-short model', 'truncated.onnx', () => fileBuffer(path.join(FIXTURES, 'negative/truncated.onnx'))],
  ])('fails on %s with the error the worker gives', async (_what, name, buffer) => {
    let pageError: Error | undefined;
    try {
      openOnPage(buffer(), name, {});
    } catch (e) {
      pageError = e as Error;
    }
    const workerError = await modelApi.open(buffer(), name).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(pageError?.name).toMatch(/Error$/);
    expect({ name: pageError?.name, message: pageError?.message }).toEqual({
      name: workerError?.name,
      message: workerError?.message,
    });
  });

  it('leaves large files and models with data files to the worker', () => {
    expect(openOnPage(new ArrayBuffer(PAGE_OPEN_BYTES + 1), 'big.onnx', {})).toBeNull();
    expect(
      openOnPage(fileBuffer(path.join(FIXTURES, 'mnist.onnx')), 'm.onnx', { 'm.onnx.data': new Blob([]) }),
    ).toBeNull();
  });

  it('the worker keeps the model under the page’s handle, with the same structure', async () => {
    const here = openOnPage(fileBuffer(path.join(FIXTURES, 'mnist.onnx')), 'mnist.onnx', {})!;
    const opened = await modelApi.open(
      fileBuffer(path.join(FIXTURES, 'mnist.onnx')),
      'mnist.onnx',
      {},
      { handle: 'page-model-1' },
    );
    try {
      expect(opened).toEqual({ handle: 'page-model-1', summary: here.summary });
      expect(modelApi.graphStructure('page-model-1')).toEqual(here.structure);
      await expect(
        modelApi.open(fileBuffer(path.join(FIXTURES, 'mnist.onnx')), 'mnist.onnx', {}, { handle: 'page-model-1' }),
      ).rejects.toThrow(/taken/);
    } finally {
      modelApi.close('page-model-1');
    }
  });
});
