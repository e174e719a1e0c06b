/**
 * The task head on the evaluation screen: the head recognised from the model shown as a suggestion (its
 * evidence, its decoder and every threshold visible) that the user accepts or changes — another decoder, another
 * output, other thresholds, or no task at all. A model whose outputs are no head the studio knows is asked to
 * choose one ("Task not recognised — choose one"), never given a wrong figure. The choice is kept per model
 * (the store's taskByModel, saved with the session); a finished evaluation's task figures follow a change at once.
 */
import { useEffect, useMemo, useState } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { LabelsDrop } from './LabelsDrop.tsx';
import { useStudio } from '../../store/index.ts';
import { headSuggestion, modelKey } from '../../store/selectors.ts';
import {
  HEAD_CHOICES,
  describeHead,
  headChoiceKind,
  headFields,
  headForChoice,
  headOutputs,
  withHeadField,
  type HeadChoiceKind,
  type HeadField,
  type TaskHead,
} from '../../../core/task/index.ts';

function FieldInput({
  field,
  disabled,
  onCommit,
}: {
  field: HeadField;
  disabled: boolean;
  onCommit: (value: number) => string | null;
}) {
  const [text, setText] = useState(String(field.value));
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setText(String(field.value)), [field.value]);
  const id = `task-field-${field.key}`;
  return (
    <div className="task-head__field">
      <label htmlFor={id}>{field.label}</label>
      <input
        id={id}
        className="input input--narrow"
        type="number"
        inputMode="decimal"
        min={field.min}
        max={field.max}
        step={field.step}
        value={text}
        disabled={disabled}
        aria-invalid={problem !== null}
        data-testid={id}
        onChange={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          setProblem(t.trim() === '' ? `${field.label}: give a number` : onCommit(Number(t)));
        }}
      />
      {problem && (
        <span className="task-head__problem small" role="alert" data-testid={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}

export function TaskHeadChoice({ disabled }: { disabled: boolean }) {
  const summary = useStudio((s) => s.model.summary);
  const taskByModel = useStudio((s) => s.evaluation.taskByModel);
  const judging = useStudio((s) => s.evaluation.taskJudging);
  const taskError = useStudio((s) => s.evaluation.taskError);
  const choose = useStudio((s) => s.chooseTaskHead);
  const guess = useMemo(() => headSuggestion(summary), [summary]);
  const [refusal, setRefusal] = useState<string | null>(null);
  const key = modelKey(summary);
  if (!summary || !guess || !key) return null;
  const chosen = taskByModel[key];
  const head: TaskHead | null = chosen === undefined ? guess.head : chosen === 'none' ? null : chosen;
  const kind: HeadChoiceKind | 'none' | '' = head ? headChoiceKind(head) : chosen === 'none' ? 'none' : '';
  const recognised = guess.head !== null;
  const state = chosen === undefined ? (recognised ? 'suggested' : 'unrecognised') : 'chosen';

  const pick = (value: string) => {
    setRefusal(null);
    if (value === 'none') return void choose('none');
    if (value === '') return;
    const r = headForChoice(summary, guess, value as HeadChoiceKind, head);
    if (r.head) void choose(r.head);
    else setRefusal(r.reason);
  };
  const pickOutput = (output: string) => {
    if (!head) return;
    const r = headForChoice(summary, guess, headChoiceKind(head), head, output);
    if (r.head) void choose(r.head);
    else setRefusal(r.reason);
  };
  const oneOutput = head && headOutputs(head).length === 1 && summary.outputs.length > 1;

  return (
    <fieldset className="task-head" data-testid="task-head" data-state={state} data-kind={kind} disabled={disabled}>
      <legend className="task-head__legend">Task judged</legend>
      {state === 'unrecognised' ? (
        <Callout kind="warning" testId="task-unrecognised" title="Task not recognised — choose one">
          <p>
            {guess.evidence.join('; ')}. Choose what the outputs mean and the studio judges boxes, classes, masks or
            text; or judge the outputs only (cosine, PSNR).
          </p>
        </Callout>
      ) : (
        <p className="small task-head__suggestion" data-testid="task-suggestion">
          {state === 'suggested' ? (
            <>
              <strong>Recognised: {guess.label}</strong>{' '}
              <span className="muted">({guess.confidence} confidence; a suggestion — accept it or change it)</span>
            </>
          ) : (
            <>
              <strong>Your choice</strong>
              {recognised ? (
                <span className="muted"> (recognised: {guess.label})</span>
              ) : (
                <span className="muted"> (the model's head was not recognised)</span>
              )}
            </>
          )}
        </p>
      )}
      {state !== 'unrecognised' && recognised && (
        <ul className="small muted task-head__evidence" data-testid="task-evidence">
          {guess.evidence.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
      <div className="task-head__row">
        <label className="task-head__field">
          <span>decoder</span>
          <select
            className="select select--inline"
            value={kind}
            onChange={(e) => pick(e.currentTarget.value)}
            data-testid="task-kind"
          >
            {kind === '' && <option value="">— choose —</option>}
            {HEAD_CHOICES.map((c) => (
              <option key={c.kind} value={c.kind}>
                {c.label}
                {guess.head && headChoiceKind(guess.head) === c.kind ? ' (recognised)' : ''}
              </option>
            ))}
            <option value="none">No task: judge the outputs only</option>
          </select>
        </label>
        {oneOutput && (
          <label className="task-head__field">
            <span>output</span>
            <select
              className="select select--inline"
              value={headOutputs(head!)[0]}
              onChange={(e) => pickOutput(e.currentTarget.value)}
              data-testid="task-output"
            >
              {summary.outputs.map((o) => (
                <option key={o.name} value={o.name}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {state === 'suggested' && (
          <button
            type="button"
            className="button button--small"
            onClick={() => void choose(guess.head!)}
            data-testid="task-accept"
          >
            Accept
          </button>
        )}
        {state === 'chosen' && recognised && (
          <button
            type="button"
            className="button button--small"
            onClick={() => void choose(null)}
            data-testid="task-reset"
          >
            Back to the suggestion
          </button>
        )}
      </div>
      {head && headFields(head).length > 0 && (
        <div className="task-head__row" data-testid="task-fields">
          {headFields(head).map((f) => (
            <FieldInput
              key={`${kind}-${f.key}`}
              field={f}
              disabled={disabled}
              onCommit={(v) => {
                const r = withHeadField(head, f.key, v);
                if (!r.head) return r.reason;
                void choose(r.head);
                return null;
              }}
            />
          ))}
        </div>
      )}
      {head && (
        <p className="small muted" data-testid="task-head-text">
          {describeHead(head)}
        </p>
      )}
      {judging && (
        <p className="small muted" data-testid="task-judging" role="status">
          Reading the task figures again through this head…
        </p>
      )}
      {refusal && (
        <Callout kind="error" testId="task-refusal" title="This decoder cannot read the model's outputs">
          <p>{refusal}</p>
        </Callout>
      )}
      {head && <LabelsDrop head={head} disabled={disabled} />}
      {taskError && (
        <ErrorCallout
          error={taskError}
          testId="task-error"
          title={
            taskError.name === 'TaskLabelError'
              ? 'The labels do not fit the images'
              : 'The task head does not fit these outputs'
          }
        />
      )}
    </fieldset>
  );
}
