/**
 * A boxed message in the flow of the page: a warning about the model, an error about a file, a note.
 * An error is announced to screen readers (role="alert"); a warning is a plain note (role="note").
 */
import type { ReactNode } from 'react';

export type CalloutKind = 'warning' | 'error' | 'info';

const ICONS: Record<CalloutKind, string> = { warning: '!', error: '×', info: 'i' };

export interface CalloutProps {
  kind: CalloutKind;
  title?: ReactNode;
  children?: ReactNode;
  /** Buttons or links at the callout's end. */
  actions?: ReactNode;
  testId?: string;
  /** Extra attributes for tests and styling (data-*). */
  data?: Record<`data-${string}`, string>;
}

export function Callout({ kind, title, children, actions, testId, data }: CalloutProps) {
  return (
    <div
      className={`callout callout--${kind}`}
      role={kind === 'error' ? 'alert' : 'note'}
      data-testid={testId}
      {...data}
    >
      <span className="callout__icon" aria-hidden="true">
        {ICONS[kind]}
      </span>
      <div className="callout__body">
        {title && <div className="callout__title">{title}</div>}
        {children && <div className="callout__text">{children}</div>}
      </div>
      {actions && <div className="callout__actions">{actions}</div>}
    </div>
  );
}
