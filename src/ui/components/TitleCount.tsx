/** The count after a card's title (how many tensors, exclusions, images): a small badge, its number for tests by testId. */
export function TitleCount({ count, testId }: { count: number; testId?: string }) {
  return (
    <span className="card__count" data-testid={testId}>
      {count}
    </span>
  );
}
