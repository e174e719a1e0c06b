/**
 * The form in which the held-in method choice judges its candidates. A float16 model written with float16 Q/DQ scales
 * (Quark's QuantizeFP16 without UseFP32Scale, the default) is judged in its float32-scale form (UseFP32Scale: the same
 * ranges, plan and weight codes, float32 scales with a Cast on each float16 side), which onnxruntime-node's CPU
 * provider runs about twice as fast: its float16 QuantizeLinear and DequantizeLinear kernels take 4-6 times a float32
 * one's time (ISNet, 1024²: 6.25 against 3.37 s of kernel time a run, bench/README.md "Float32 scales for float16
 * models"). The chosen method is still written in the form the configuration asks for. Every other model and
 * configuration is judged as written. Pure, and light enough for the page's main thread (its text).
 */
import type { QuantConfig } from '../quantize/config.ts';

/** The judged form of a float16 model written with float16 scales (MethodChoice.judgedForm). */
export const FLOAT32_SCALES = 'float32 scales';

/** What a judged form other than the written one reads as, in the command's line and on the page. */
export const JUDGED_FORM_TEXT: Readonly<Record<typeof FLOAT32_SCALES, string>> = {
  [FLOAT32_SCALES]: 'candidates judged with float32 Q/DQ scales, the chosen one written with float16 scales',
};

/**
 * The configuration a candidate configured by `config` is judged in, for a model that computes in float16 or not
 * (halfFloat/float16.ts float16Nodes): float32 scales where `config` writes the float16 model's Q/DQ with float16 ones
 * (neither UseFP32Scale nor ConvertFP16ToFP32), else `config` itself (the same object, so the candidates' preparation
 * is the write's).
 */
export function judgedScaleForm(float16Model: boolean): (config: QuantConfig) => QuantConfig {
  return (config) => {
    const x = config.extraOptions;
    if (!float16Model || x.UseFP32Scale || x.ConvertFP16ToFP32) return config;
    return { ...config, extraOptions: { ...x, UseFP32Scale: true } };
  };
}
