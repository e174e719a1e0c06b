/**
 * A determinate progress bar: the track (role progressbar, its value for assistive technology) and the bar
 * filled to `percent` of its width. Callers say how the percent is rounded.
 */
export function ProgressTrack({
  label,
  now,
  max,
  percent,
  thin = false,
  testId,
}: {
  label: string;
  now: number;
  max: number;
  percent: number;
  thin?: boolean;
  testId?: string;
}) {
  return (
    <div
      className={thin ? 'progress__track progress__track--thin' : 'progress__track'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={now}
      data-testid={testId}
    >
      <span className="progress__bar" style={{ width: `${percent}%` }} />
    </div>
  );
}
