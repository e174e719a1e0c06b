/**
 * A failed step's error on its card: the error's title (from the card's own error titles), its message, a hint where
 * one is known, and Dismiss where the error can be put away. The error's name is on the box (data-error-name) for tests
 * and styling.
 */
import { Callout } from './Callout.tsx';

export interface ErrorCalloutProps {
  error: { name: string; message: string };
  title: string;
  hint?: string;
  testId: string;
  /** Puts the error away (a Dismiss button); without it the error stays until what it is about changes. */
  onDismiss?: () => void;
}

export function ErrorCallout({ error, title, hint, testId, onDismiss }: ErrorCalloutProps) {
  return (
    <Callout
      kind="error"
      testId={testId}
      data={{ 'data-error-name': error.name }}
      title={title}
      actions={
        onDismiss && (
          <button type="button" className="button button--small" onClick={onDismiss}>
            Dismiss
          </button>
        )
      }
    >
      <p>{error.message}</p>
      {hint && <p className="callout__hint">{hint}</p>}
    </Callout>
  );
}
