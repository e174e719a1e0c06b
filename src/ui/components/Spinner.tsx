/**
 * A small indeterminate progress indicator. Decorative: the surrounding text says what is happening,
 * so it is hidden from assistive technology.
 */
export function Spinner({ size = 20 }: { size?: number }) {
  return <span className="spinner" style={{ width: size, height: size }} aria-hidden="true" />;
}
