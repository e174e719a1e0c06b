/**
 * The first image as given and as the model will see it: decoded here (one image is cheap), run
 * through the core's `imageToTensor` with the current spec, denormalised for display. A spec that
 * does not fit the model shows its PreprocessError in place of the picture, so the fix is obvious
 * before calibrating.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TensorSummary } from '../../../core/onnx/index.ts';
import type { PreprocessSpec } from '../../../core/preprocess/spec.ts';
import type { RgbaImage } from '../../../core/preprocess/resize.ts';
import { imageToTensor, imageToUint8Tensor } from '../../../core/preprocess/toTensor.ts';
import { displayName } from '../../store/samples.ts';
import { tensorToRgba, type PreviewPixels } from './preview.ts';

async function decode(file: File): Promise<RgbaImage> {
  const bitmap = await createImageBitmap(file, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(bitmap, 0, 0);
    return {
      data: context.getImageData(0, 0, bitmap.width, bitmap.height).data,
      width: bitmap.width,
      height: bitmap.height,
    };
  } finally {
    bitmap.close();
  }
}

function Picture({ pixels, label, testId }: { pixels: PreviewPixels | RgbaImage; label: string; testId: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    c.width = pixels.width;
    c.height = pixels.height;
    const data = pixels.data instanceof Uint8ClampedArray ? pixels.data : new Uint8ClampedArray(pixels.data);
    c.getContext('2d')!.putImageData(
      new ImageData(data as Uint8ClampedArray<ArrayBuffer>, pixels.width, pixels.height),
      0,
      0,
    );
  }, [pixels]);
  return (
    <figure className="preview__figure">
      <canvas ref={canvas} className="preview__canvas" data-testid={testId} role="img" aria-label={label} />
      <figcaption className="preview__caption">{label}</figcaption>
    </figure>
  );
}

export function PreviewPanel({
  file,
  input,
  spec,
}: {
  file: File | null;
  input: TensorSummary | null;
  spec: PreprocessSpec;
}) {
  const [original, setOriginal] = useState<{ file: File; pixels: RgbaImage } | { file: File; error: string } | null>(
    null,
  );

  useEffect(() => {
    if (!file) {
      setOriginal(null);
      return;
    }
    let live = true;
    decode(file).then(
      (pixels) => live && setOriginal({ file, pixels }),
      (e: unknown) =>
        live &&
        setOriginal({
          file,
          error: `${displayName(file)} could not be read as an image (${e instanceof Error ? e.message : String(e)}).`,
        }),
    );
    return () => {
      live = false;
    };
  }, [file]);

  const pixels = original && 'pixels' in original && original.file === file ? original.pixels : null;
  const made = useMemo(() => {
    if (!pixels || !input) return null;
    try {
      const t =
        spec.elementType === 'uint8'
          ? imageToUint8Tensor(pixels, input.shape ?? [], spec, { inputName: input.name })
          : imageToTensor(pixels, input.shape ?? [], spec, { inputName: input.name });
      return { processed: tensorToRgba(t.data, t.dims, spec), problem: null };
    } catch (e) {
      return { processed: null, problem: e instanceof Error ? e.message : String(e) };
    }
  }, [pixels, input, spec]);

  if (!file)
    return (
      <p className="preview__empty muted" data-testid="preview-empty">
        Add images to preview the preprocessing.
      </p>
    );
  if (!input)
    return <p className="preview__empty muted">The model has several inputs: images cannot be previewed for it.</p>;
  if (!original || original.file !== file) return <p className="preview__empty muted">Reading {displayName(file)}…</p>;
  if ('error' in original)
    return (
      <p className="preview__empty preview__error" data-testid="preview-error">
        {original.error}
      </p>
    );

  const processed = made?.processed ?? null;

  return (
    <div className="preview" data-testid="preprocess-preview">
      <Picture
        pixels={original.pixels}
        label={`${displayName(file)} · ${original.pixels.width}×${original.pixels.height}`}
        testId="preview-original"
      />
      {processed ? (
        <Picture
          pixels={processed}
          label={`As the model sees it · ${processed.width}×${processed.height}`}
          testId="preview-processed"
        />
      ) : (
        <p className="preview__empty preview__error" role="alert" data-testid="preview-error">
          {made?.problem}
        </p>
      )}
    </div>
  );
}
