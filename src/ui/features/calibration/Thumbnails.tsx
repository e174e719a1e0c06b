/**
 * A strip of the first calibration images, so the user sees what they gave; choosing one shows it in
 * the preprocessing preview. Object URLs are made for the images shown only, and revoked when the list
 * changes or the strip goes away. A file the browser cannot show gets a plain tile (calibration will
 * skip it and say why).
 */
import { useEffect, useState } from 'react';
import { displayName } from '../../store/samples.ts';
import { useStudio } from '../../store/index.ts';

const SHOWN = 12;

export function Thumbnails({ files }: { files: readonly File[] }) {
  const shown = files.slice(0, SHOWN);
  const [urls, setUrls] = useState<string[]>([]);
  const [broken, setBroken] = useState<ReadonlySet<string>>(new Set());
  const selected = useStudio((s) => s.calibration.previewIndex);
  const select = useStudio((s) => s.setPreviewImage);
  const key = shown.map(displayName).join('\n');

  useEffect(() => {
    const made = shown.map((f) => URL.createObjectURL(f));
    setUrls(made);
    setBroken(new Set());
    return () => made.forEach((u) => URL.revokeObjectURL(u));
    // `key` stands for the shown files: the same files keep their URLs across renders.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return (
    <ul className="thumbs" data-testid="calibration-thumbnails" aria-label={`First ${shown.length} images; choose one to preview it`}>
      {urls.map((url, i) => {
        const name = shown[i] ? displayName(shown[i]) : '';
        return (
          <li key={url} className="thumbs__item">
            <button type="button" className="thumbs__button" title={name} aria-label={`Preview ${name}`} aria-pressed={i === selected} onClick={() => select(i)}>
              {broken.has(url) ? (
                <span className="thumbs__broken" aria-hidden="true">?</span>
              ) : (
                <img className="thumbs__image" src={url} alt="" loading="lazy" decoding="async" onError={() => setBroken((b) => new Set(b).add(url))} />
              )}
            </button>
          </li>
        );
      })}
      {files.length > SHOWN && <li className="thumbs__more">+{files.length - SHOWN}</li>}
    </ul>
  );
}
