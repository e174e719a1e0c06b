/**
 * What became of the data given for the model opened before: the question ("keep these images for this
 * model?") with Keep and Clear, or, for the sample's drawn scenes (cleared: they fit no other model), a
 * note that says so. Nothing is carried from one model to another without the user seeing it.
 */
import { Callout } from '../../components/Callout.tsx';
import { plural } from '../../components/format.ts';
import { useStudio } from '../../store/index.ts';

function what(calibration: number, evaluation: number, sample: boolean): string {
  const parts = [
    calibration > 0
      ? `${plural(calibration, sample ? 'text scene' : 'calibration sample')}${sample ? ' (calibration)' : ''}`
      : '',
    evaluation > 0 ? `${plural(evaluation, sample ? 'held-out scene' : 'evaluation image')}` : '',
  ].filter(Boolean);
  return parts.join(' and ');
}

export function CarriedDataNotice() {
  const carried = useStudio((s) => s.calibration.carried);
  const model = useStudio((s) => s.model.fileName);
  const keep = useStudio((s) => s.setCarriedData);
  const clearCalibration = useStudio((s) => s.clearCalibrationData);
  const clearEvaluation = useStudio((s) => s.clearEvaluationData);
  if (!carried) return null;
  if (carried.kind === 'cleared') {
    return (
      <Callout
        kind="info"
        testId="carried-data"
        data={{ 'data-kind': 'cleared' }}
        title="The sample's images were cleared"
        actions={
          <button type="button" className="button button--small" onClick={() => keep(null)}>
            OK
          </button>
        }
      >
        <p>
          {what(carried.calibration, carried.evaluation, true)} were drawn for the sample ({carried.from}), not for{' '}
          {model}: add images like those {model} will see.
        </p>
      </Callout>
    );
  }
  return (
    <Callout
      kind="warning"
      testId="carried-data"
      data={{ 'data-kind': 'offer' }}
      title={`Keep these images for ${model}?`}
      actions={
        <>
          <button type="button" className="button button--small" data-testid="carried-keep" onClick={() => keep(null)}>
            Keep them
          </button>
          <button
            type="button"
            className="button button--small"
            data-testid="carried-clear"
            onClick={() => {
              clearCalibration();
              clearEvaluation();
            }}
          >
            Clear them
          </button>
        </>
      }
    >
      <p>
        {what(carried.calibration, carried.evaluation, false)} were added for {carried.from}. They calibrate and judge{' '}
        {model} only if they are like what it will see.
      </p>
    </Callout>
  );
}
