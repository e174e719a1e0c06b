/**
 * The recognised preprocessing, shown as what it is: a suggestion. It names the family, how sure
 * the recognition is and the facts it rests on (the core's evidence), says whether the form still
 * holds it, and offers to accept it (or to take it back after edits). Nothing here changes the
 * spec without a click.
 */
import type { PreprocessGuess } from '../../../core/preprocess/recognize.ts';
import { Callout } from '../../components/Callout.tsx';

const dimsText = (guess: PreprocessGuess, formDims: Record<string, number>) => {
  const values = Object.entries(guess.spec.dims);
  if (values.some(([k, v]) => formDims[k] !== v))
    return ` The form's open dimensions: ${Object.entries(formDims)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ')}.`;
  if (values.length === 0) return '';
  const from = {
    family: "the family's usual size",
    images: 'the first image',
    fallback: 'a default until images come',
    none: '',
  }[guess.dimsSource];
  return ` Open dimensions: ${values.map(([k, v]) => `${k} = ${v}`).join(', ')}${from ? ` (${from})` : ''}.`;
};

export function PreprocessSuggestionBox({
  guess,
  formDims,
  inForm,
  accepted,
  onAccept,
}: {
  guess: PreprocessGuess;
  formDims: Record<string, number>;
  inForm: boolean;
  accepted: boolean;
  onAccept: () => void;
}) {
  const recognised = guess.family !== null || guess.confidence !== 'low';
  const title = recognised ? (
    <>
      Recognised: {guess.label} <span className="muted small">({guess.confidence} confidence)</span>
    </>
  ) : (
    <>
      Not recognised: starting from <code>{guess.preset}</code>
    </>
  );
  const state = accepted && inForm ? 'accepted' : inForm ? 'suggested' : 'changed';
  return (
    <Callout
      kind="info"
      testId="preprocess-recognition"
      data={{ 'data-state': state, 'data-family': guess.family ?? '' }}
      title={title}
      actions={
        state === 'accepted' ? (
          <span className="small" data-testid="preprocess-accepted">
            Accepted ✓
          </span>
        ) : (
          <button type="button" className="button button--small" data-testid="preprocess-accept" onClick={onAccept}>
            {inForm ? 'Accept' : 'Use the suggestion'}
          </button>
        )
      }
    >
      <p className="small">
        {state === 'accepted' ? (
          <>
            Accepted: the form holds <code>{guess.preset}</code>; any field can still be changed.
          </>
        ) : inForm ? (
          <>
            The form below starts from <code>{guess.preset}</code>; accept it or change any field. Check it against the
            model's documentation.
          </>
        ) : (
          <>
            You changed the form; the suggestion was <code>{guess.preset}</code>.
          </>
        )}
        {dimsText(guess, formDims)}
      </p>
      <details>
        <summary className="small">Why</summary>
        <ul className="plain-list small" data-testid="preprocess-evidence">
          {guess.evidence.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      </details>
    </Callout>
  );
}
