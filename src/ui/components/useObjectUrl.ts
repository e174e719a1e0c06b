/**
 * An object URL for a Blob, alive as long as the component shows it: revoked when the Blob changes
 * or the component unmounts, so replaced images and downloads do not pin memory.
 */
import { useEffect, useState } from 'react';

export function useObjectUrl(blob: Blob | null | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setUrl(null);
      return;
    }
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [blob]);
  return url;
}

/** Saves text as a file through a short-lived object URL (an <a download> click). */
export function downloadText(text: string, fileName: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own reference once started; a generous delay keeps slow starts safe.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
