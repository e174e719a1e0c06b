/**
 * While the model's symbolic height and width hold the fallback guess (no family size was known),
 * the first calibration image's size replaces it (core defaultDims: scaled to fit, multiples of 32).
 * Only the image's header-level size is needed; a file the browser cannot decode changes nothing.
 */
import { useEffect } from 'react';
import { useStudio } from '../../store/index.ts';

export function useDimsFromImages(): void {
  const first = useStudio((s) => s.calibration.images[0] ?? null);
  const waiting = useStudio((s) => s.calibration.dimsSource === 'fallback');
  useEffect(() => {
    if (!first || !waiting) return;
    let live = true;
    createImageBitmap(first)
      .then((bitmap) => {
        const size = { height: bitmap.height, width: bitmap.width };
        bitmap.close();
        if (live) useStudio.getState().fitDimsToImage(size);
      })
      .catch(() => undefined); // an undecodable file is named by calibration; the fallback stays
    return () => {
      live = false;
    };
  }, [first, waiting]);
}
