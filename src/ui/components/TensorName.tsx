/**
 * A tensor or node name that wraps only where it has a separator ("p2o.BatchNormalization.0",
 * "/model.22/Concat_output_0"): a line break opportunity after each `.`, `/`, `_`, `:` or `-`, so a
 * narrow column breaks "sigmoid_0.|tmp_0" and never "sigm|oid_0". A part longer than the line still
 * breaks (the `name-wrap` class's overflow-wrap: break-word), rather than overflowing its box.
 */
import { Fragment } from 'react';

/** The name's parts, each ending with its separator. */
export function nameParts(name: string): string[] {
  return name.match(/[^./_:-]*[./_:-]+|[^./_:-]+$/g) ?? [name];
}

export function TensorName({ name }: { name: string }) {
  const parts = nameParts(name);
  return (
    <span className="name-wrap">
      {parts.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </span>
  );
}
