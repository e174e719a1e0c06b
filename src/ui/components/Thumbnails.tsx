/**
 * A strip of images, so the user sees what they gave: the first twelve, and a "+N" tile that opens the
 * whole list (every image, scrollable, with its name on hover) and closes it again. Choosing one calls
 * `onSelect` (the calibration shows it in the preprocessing preview). Object URLs are made for the images
 * shown only, and revoked when the list changes or the strip goes away. A file the browser cannot show
 * gets a plain tile.
 */
import { useEffect, useState } from 'react';
import { displayName } from '../store/samples.ts';

const SHOWN = 12;

export function Thumbnails({
  files,
  selected,
  onSelect,
  testId,
  label,
}: {
  files: readonly File[];
  /** The index shown as chosen (none when absent). */
  selected?: number;
  onSelect?: (index: number) => void;
  testId: string;
  /** What the images are, for the list's accessible name ("calibration images"). */
  label: string;
}) {
  const [open, setOpen] = useState(false);
  const shown = open ? files : files.slice(0, SHOWN);
  const [urls, setUrls] = useState<string[]>([]);
  const [broken, setBroken] = useState<ReadonlySet<string>>(new Set());
  const key = `${open}\n${shown.map(displayName).join('\n')}`;

  useEffect(() => {
    const made = shown.map((f) => URL.createObjectURL(f));
    setUrls(made);
    setBroken(new Set());
    return () => made.forEach((u) => URL.revokeObjectURL(u));
    // `key` stands for the shown files: the same files keep their URLs across renders.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const hidden = files.length - SHOWN;
  return (
    <ul
      className={`thumbs${open ? ' thumbs--open' : ''}`}
      data-testid={testId}
      data-open={open ? 'true' : 'false'}
      aria-label={
        open
          ? `All ${files.length} ${label}`
          : `First ${shown.length} of ${files.length} ${label}${onSelect ? '; choose one to preview it' : ''}`
      }
    >
      {urls.map((url, i) => {
        const name = shown[i] ? displayName(shown[i]) : '';
        const image = broken.has(url) ? (
          <span className="thumbs__broken" aria-hidden="true">
            ?
          </span>
        ) : (
          <img
            className="thumbs__image"
            src={url}
            alt={onSelect ? '' : name}
            loading="lazy"
            decoding="async"
            onError={() => setBroken((b) => new Set(b).add(url))}
          />
        );
        return (
          <li key={url} className="thumbs__item" title={name} data-testid="thumbnail">
            {onSelect ? (
              <button
                type="button"
                className="thumbs__button"
                aria-label={`Preview ${name}`}
                aria-pressed={i === selected}
                onClick={() => onSelect(i)}
              >
                {image}
              </button>
            ) : (
              image
            )}
          </li>
        );
      })}
      {hidden > 0 && (
        <li className="thumbs__more">
          <button
            type="button"
            className="thumbs__more-button"
            data-testid="thumbnails-toggle"
            aria-expanded={open}
            title={open ? 'Show the first images only' : `Show all ${files.length} images`}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? 'Fewer' : `+${hidden}`}
          </button>
        </li>
      )}
    </ul>
  );
}
