/**
 * One screen of the flow: a section named by its heading, the heading and a lead line under it, then the
 * screen's cards.
 */
import type { ReactNode } from 'react';

export function FlowSection({
  titleId,
  title,
  lead,
  testId,
  children,
}: {
  titleId: string;
  title: string;
  lead: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <section className="flow" aria-labelledby={titleId} data-testid={testId}>
      <header className="flow__header">
        <h2 id={titleId} className="flow__title">
          {title}
        </h2>
        <p className="flow__lead muted">{lead}</p>
      </header>
      {children}
    </section>
  );
}
