/**
 * How images become the model's input: the recognised preprocessing as a suggestion to accept, a preset
 * to start from, every field of the spec editable, the same JSON the command line takes (`--preprocess`)
 * to export and import, and a preview of the first image as the model will see it.
 */
import { useRef, useState } from 'react';
import {
  PRESET_DESCRIPTIONS,
  PRESET_NAMES,
  getPreprocessPreset,
  isPresetName,
} from '../../../core/preprocess/presets.ts';
import { formatPreprocess, parsePreprocess, type PreprocessSpec } from '../../../core/preprocess/spec.ts';
import { Callout } from '../../components/Callout.tsx';
import { downloadText } from '../../components/useObjectUrl.ts';
import { useStudio } from '../../store/index.ts';
import { symbolicDims } from '../../store/preprocessSuggestion.ts';
import { PreprocessSuggestionBox } from './PreprocessSuggestionBox.tsx';
import { PreviewPanel } from './PreviewPanel.tsx';
import { SpecFields } from './SpecFields.tsx';
import { StepCard } from '../../components/StepCard.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { modelStem } from '../../../core/onnx/fileName.ts';

/** Whether two specs differ only in dimension values (those belong to the model, not to a preset). */
function sameBesidesDims(a: PreprocessSpec, b: PreprocessSpec): boolean {
  const plain = (s: PreprocessSpec) => formatPreprocess({ ...s, dims: {} });
  return plain(a) === plain(b);
}

/** Whether a spec is still the preset's. */
const isPresetSpec = (spec: PreprocessSpec, preset: string) =>
  isPresetName(preset) && sameBesidesDims(spec, getPreprocessPreset(preset));

export function PreprocessCard() {
  const spec = useStudio((s) => s.calibration.spec);
  const preset = useStudio((s) => s.calibration.specPreset);
  const suggestion = useStudio((s) => s.calibration.suggestion);
  const accepted = useStudio((s) => s.calibration.suggestionAccepted);
  const acceptSuggestion = useStudio((s) => s.acceptPreprocessSuggestion);
  const summary = useStudio((s) => s.model.summary);
  const previewImage = useStudio(
    (s) => s.calibration.images[s.calibration.previewIndex] ?? s.calibration.images[0] ?? null,
  );
  const setPreprocess = useStudio((s) => s.setPreprocess);
  const importInput = useRef<HTMLInputElement>(null);
  const [importError, setImportError] = useState<string | null>(null);

  const input = summary && summary.inputs.length === 1 ? summary.inputs[0] : null;
  const shape = input?.shape ?? null;
  const channelDim =
    shape && shape.length >= 3 ? (spec.layout === 'NCHW' ? shape[shape.length - 3] : shape[shape.length - 1]) : null;
  const channels = typeof channelDim === 'number' ? channelDim : null;
  const dimNames = summary ? symbolicDims(summary) : [];
  const baseName = modelStem(summary?.fileName ?? 'model');

  return (
    <StepCard titleId="preprocess-title" step={3} data-testid="preprocess-card" title="Preprocessing">
      {suggestion && (
        <PreprocessSuggestionBox
          guess={suggestion}
          formDims={spec.dims}
          accepted={accepted}
          onAccept={acceptSuggestion}
          inForm={sameBesidesDims(spec, suggestion.spec)}
        />
      )}
      <div className="preprocess">
        <div className="preprocess__form">
          <SelectField
            label="Start from"
            value={preset}
            testId="preprocess-preset"
            onChange={(name) => {
              if (isPresetName(name)) setPreprocess({ ...getPreprocessPreset(name), dims: spec.dims }, name);
            }}
          >
            {PRESET_NAMES.map((name) => (
              <option key={name} value={name}>
                {name} — {PRESET_DESCRIPTIONS[name]}
              </option>
            ))}
            {preset === 'custom' && <option value="custom">custom (edited)</option>}
          </SelectField>
          <SpecFields
            spec={spec}
            channels={channels}
            dimNames={dimNames}
            onChange={(next) => setPreprocess(next, isPresetSpec(next, preset) ? preset : 'custom')}
          />
          <div className="step__actions">
            <button
              type="button"
              className="button button--small"
              data-testid="preprocess-export"
              onClick={() => downloadText(`${formatPreprocess(spec)}\n`, `${baseName}.preprocess.json`)}
            >
              Export JSON
            </button>
            <button type="button" className="button button--small" onClick={() => importInput.current?.click()}>
              Import JSON…
            </button>
            <span className="muted small">
              The same JSON as <code>qstudio calibrate --preprocess</code>.
            </span>
            <input
              ref={importInput}
              type="file"
              accept=".json,application/json"
              hidden
              data-testid="preprocess-import"
              onChange={async (e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = '';
                if (!file) return;
                try {
                  setPreprocess(parsePreprocess(await file.text()), 'custom');
                  setImportError(null);
                } catch (err) {
                  setImportError(`${file.name}: ${err instanceof Error ? err.message : String(err)}`);
                }
              }}
            />
          </div>
          {importError && (
            <Callout
              kind="error"
              testId="preprocess-import-error"
              title="Could not import the preprocessing"
              actions={
                <button type="button" className="button button--small" onClick={() => setImportError(null)}>
                  Dismiss
                </button>
              }
            >
              <p>{importError}</p>
            </Callout>
          )}
        </div>
        <div className="preprocess__preview">
          <PreviewPanel file={previewImage} input={input} spec={spec} />
        </div>
      </div>
    </StepCard>
  );
}
