/**
 * The quantization settings: a preset (each with its one-line summary from the core), its calibration method (the preset's own unless picked), per-channel
 * weights, random calibration data, and the 16-bit tensors a mixed-precision search chose (shown, clearable). Calibration depends on them (the preset picks the activation
 * collector), so they sit before the Calibrate button.
 */
import { choosesMethodByDefault, getPreset, PRESET_NAMES, presetDefinition } from '../../../core/quantize/presets.ts';
import { CHOICE_METHODS, HELD_IN_METHOD } from '../../../core/evaluate/calibrationMethodChoice.ts';
import { BF16_PRESET, BF16_SUMMARY } from '../../../core/quantize/bf16Preset.ts';
import { useStudio } from '../../store/index.ts';
import {
  choosesMethod,
  DEFAULT_FP16_OPTIONS,
  methodsFor,
  shownPreset,
  type StudioPreset,
} from '../../store/quantSettings.ts';
import { StepCard } from '../../components/StepCard.tsx';
import { Checkbox } from '../../components/Checkbox.tsx';
import { SelectField } from '../../components/SelectField.tsx';

export function QuantSettingsCard() {
  const settings = useStudio((s) => s.run.settings);
  const setPreset = useStudio((s) => s.setQuantPreset);
  const setPerChannel = useStudio((s) => s.setPerChannel);
  const setSaturationSafeWeights = useStudio((s) => s.setSaturationSafeWeights);
  const setEnableSubgraph = useStudio((s) => s.setEnableSubgraph);
  const bodies = useStudio((s) => s.model.summary?.subgraphNodeCount ?? 0);
  const setCalibrationMethod = useStudio((s) => s.setCalibrationMethod);
  const setUseRandomData = useStudio((s) => s.setUseRandomData);
  const setTensorOverrides = useStudio((s) => s.setTensorOverrides);
  const overrides = Object.entries(settings.tensorOverrides ?? {});
  const locked = useStudio((s) => s.calibration.status === 'running' || s.run.status === 'running');
  const float16 = useStudio((s) => s.model.summary?.float16 === true);
  const fp16 = { ...DEFAULT_FP16_OPTIONS, ...settings.fp16 };
  const setFp16 = useStudio((s) => s.setFp16Options);
  const bf16 = settings.bf16 === true;
  const own = getPreset(settings.preset).calibrationMethod;
  const choosesByDefault = choosesMethodByDefault(settings.preset);
  const choosing = choosesMethod(settings);
  const candidates = CHOICE_METHODS.filter((m) => methodsFor(settings.preset).includes(m)).join(', ');

  return (
    <StepCard titleId="settings-title" step={2} data-testid="quant-settings" title="Quantization">
      <SelectField
        label="Preset"
        value={shownPreset(settings)}
        disabled={locked}
        testId="quant-preset"
        onChange={(name) => setPreset(name as StudioPreset)}
        hint={bf16 ? BF16_SUMMARY : presetDefinition(settings.preset).summary}
        hintTestId="quant-preset-summary"
      >
        {PRESET_NAMES.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
        <option value={BF16_PRESET}>{BF16_PRESET} (with-cast)</option>
      </SelectField>
      {!bf16 && (
        <SelectField
          label="Calibration method"
          value={settings.calibrationMethod ?? ''}
          disabled={locked}
          testId="calibration-method"
          onChange={(method) => setCalibrationMethod(method || null)}
          hintTestId="calibration-method-hint"
          hint={
            choosing
              ? `Calibration method: chosen on held-in samples${choosesByDefault && !settings.calibrationMethod ? ' (default)' : ''}. Half the calibration samples calibrate with each of ${candidates}, the other half judge them at onnxruntime-web’s default options, and the best is used (the preset’s own, ${own}, keeps a tie); about 3× a plain calibration’s time. For A8W8 it measured at least MinMax’s held-out figure on all six benchmarked models, where no single method did (bench preset-methods).`
              : `Calibration method: ${settings.calibrationMethod ?? own}${settings.calibrationMethod ? '' : ' (the preset’s own)'}. How activation ranges are chosen; “Chosen on held-in samples” measures ${candidates} on this model instead, as no single method measured best on every benchmarked model (bench preset-methods).`
          }
        >
          {choosesByDefault ? (
            <>
              <option value="">Chosen on held-in samples (default)</option>
              <option value={own}>{own} (the preset’s own)</option>
            </>
          ) : (
            <>
              <option value="">The preset’s ({own})</option>
              <option value={HELD_IN_METHOD}>Chosen on held-in samples</option>
            </>
          )}
          {methodsFor(settings.preset)
            .filter((m) => m !== own)
            .map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
        </SelectField>
      )}
      {bf16 && (
        <p className="field__hint" data-testid="bf16-note">
          Calibration is optional: bfloat16 keeps float32's range, so there is no scale to choose. Every node is rounded
          to BF16; the Keep-in-float list does not apply. Compile the float model for the NPU; this model measures BF16
          loss on a CPU.
        </p>
      )}
      <Checkbox
        checked={settings.perChannel}
        onChange={setPerChannel}
        testId="per-channel"
        disabled={locked || bf16}
        hint={
          <>
            One scale per output channel; raises the opset to 13 where needed. Usually much better for depthwise
            convolutions.
          </>
        }
      >
        Per-channel weights
      </Checkbox>
      <Checkbox
        checked={settings.saturationSafeWeights === true}
        onChange={setSaturationSafeWeights}
        testId="saturation-safe"
        disabled={locked || bf16}
        hint={
          <>
            7-bit codes only in the weight channels whose 8-bit products onnxruntime's CPU kernels (default options, x86
            without VNNI) could saturate; the rest keep 8 bits. Off in every preset (the NPU presets reproduce Quark's
            configs); for a model deployed with onnxruntime on a CPU (bench cpu-kernels).
          </>
        }
      >
        Safe for x86 CPU int8 kernels
      </Checkbox>
      {(bodies > 0 || settings.enableSubgraph === true) && (
        <Checkbox
          checked={settings.enableSubgraph === true}
          onChange={setEnableSubgraph}
          testId="enable-subgraph"
          disabled={locked || bf16}
          hint={
            <>
              EnableSubgraph: the {bodies} nodes inside this model&apos;s If/Loop/Scan bodies are calibrated and
              quantized too (LSTM/GRU stay float). Off by default, as in ONNX Runtime: on Silero VAD the bodies&apos;
              Convs cost most of its accuracy, so measure it.
            </>
          }
        >
          Quantize inside control flow (If, Loop, Scan)
        </Checkbox>
      )}
      <Checkbox
        checked={settings.useRandomData}
        onChange={setUseRandomData}
        testId="random-data"
        disabled={locked || bf16}
        hint="UseRandomData: quick to try, but ranges from noise rarely match real inputs."
      >
        Random data when no images are given
      </Checkbox>
      {float16 && !bf16 && (
        <fieldset className="fp16-options" data-testid="fp16-options">
          <legend className="field__label">Float16 model</legend>
          <Checkbox
            checked={fp16.convertAll}
            onChange={(checked) => setFp16({ convertAll: checked })}
            testId="fp16-convert-all"
            disabled={locked}
            hint={
              <>
                ConvertFP16ToFP32 (convert_fp16_to_fp32 on "all"): the result is a float32 model. Off: pick subgraphs to
                convert in the list “Convert to FP32”.
              </>
            }
          >
            Convert the whole model to FP32 first
          </Checkbox>
          <Checkbox
            checked={fp16.quantizeFp16 && !fp16.convertAll}
            onChange={(checked) => setFp16({ quantizeFp16: checked })}
            testId="fp16-quantize"
            disabled={locked || fp16.convertAll}
            hint={<>Q/DQ on the float16 tensors; the parts left float stay float16, with Casts at every border.</>}
          >
            QuantizeFP16
          </Checkbox>
          <Checkbox
            checked={fp16.useFp32Scale}
            onChange={(checked) => setFp16({ useFp32Scale: checked })}
            testId="fp16-fp32-scale"
            disabled={locked || fp16.convertAll}
            hint={<>Float32 Q/DQ scales with Casts around them, as the guide sets for the NPU; off: float16 scales.</>}
          >
            UseFP32Scale
          </Checkbox>
        </fieldset>
      )}
      {overrides.length > 0 && (
        <div className="field__hint" data-testid="tensor-overrides" data-count={overrides.length}>
          Mixed precision: {overrides.length} tensor{overrides.length === 1 ? '' : 's'} quantized as{' '}
          {[...new Set(overrides.map(([, o]) => o[0]?.quant_type))].join(', ')} (TensorQuantOverrides; exported with the
          config){' '}
          <button
            type="button"
            className="button button--small button--quiet"
            disabled={locked}
            onClick={() => setTensorOverrides({})}
            data-testid="tensor-overrides-clear"
          >
            Clear
          </button>
          <details>
            <summary className="small">Which</summary>
            <ul className="small mono">
              {overrides.slice(0, 200).map(([t, o]) => (
                <li key={t}>
                  {t}: {o[0]?.quant_type}
                </li>
              ))}
            </ul>
          </details>
        </div>
      )}
    </StepCard>
  );
}
