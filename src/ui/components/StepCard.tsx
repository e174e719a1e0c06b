/**
 * A step of the page as a card: the section (card step), its title as the section's label, and the step's number
 * before the title where the step has one. Other attributes (data-testid, the step's status) go on the section.
 */
import type { HTMLAttributes, ReactNode } from 'react';

export interface StepCardProps extends Omit<HTMLAttributes<HTMLElement>, 'title'> {
  /** The title's id, which labels the section. */
  titleId: string;
  /** The step's number, shown before the title. */
  step?: number;
  title: ReactNode;
  children: ReactNode;
}

export function StepCard({ titleId, step, title, children, ...section }: StepCardProps) {
  return (
    <section className="card step" aria-labelledby={titleId} {...section}>
      <h3 id={titleId} className="card__title">
        {step !== undefined && (
          <>
            <span className="step__number" aria-hidden="true">
              {step}
            </span>{' '}
          </>
        )}
        {title}
      </h3>
      {children}
    </section>
  );
}
