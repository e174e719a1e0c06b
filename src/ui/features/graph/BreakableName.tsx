/**
 * A long identifier ("/model.22/cv2.0/Conv", "647_DequantizeLinear") that may wrap only after its separators
 * (/ _ . : -), never mid-word: a break opportunity (<wbr>) after each; CSS `overflow-wrap: anywhere` remains the
 * fallback for a single part longer than the line. The text content is the name unchanged.
 */
import { Fragment } from 'react';

export function BreakableName({ name }: { name: string }) {
  const parts = name.split(/(?<=[/_.:-])/);
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
