/**
 * A failed open, named in plain words ("Truncated model") with the message that says what to do.
 * It never replaces what the user had: the open model, if any, stays below it. Escape or the
 * Dismiss button hides it. A file dropped anywhere on the page may be refused while the user is far down
 * it (calibrating, evaluating): the panel brings itself into view, or the drop would seem to do nothing.
 */
import { useEffect, useRef } from 'react';
import type { ModelError } from '../../store/index.ts';
import { Callout } from '../../components/Callout.tsx';
import { errorHint, errorTitle } from './errorTitles.ts';

export function ModelErrorPanel({
  error,
  keptFileName,
  onDismiss,
}: {
  error: ModelError;
  keptFileName: string | null;
  onDismiss: () => void;
}) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
  }, [error]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onDismiss();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onDismiss]);

  return (
    <div ref={panel}>
      <Callout
        kind="error"
        testId="model-error"
        data={{ 'data-error-name': error.name }}
        title={
          <>
            {errorTitle(error.name)}
            <span className="callout__subject">
              {' '}
              · <span className="file-name">{error.fileName}</span>
            </span>
          </>
        }
        actions={
          <button
            type="button"
            className="button button--small"
            onClick={onDismiss}
            aria-keyshortcuts="Escape"
            data-testid="dismiss-error"
          >
            Dismiss
          </button>
        }
      >
        <p>{error.message}</p>
        {errorHint(error.name) && <p className="callout__hint">{errorHint(error.name)}</p>}
        {keptFileName && (
          <p className="callout__kept">
            <span className="file-name">{keptFileName}</span> is still open below.
          </p>
        )}
      </Callout>
    </div>
  );
}
