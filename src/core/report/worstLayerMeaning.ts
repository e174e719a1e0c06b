/**
 * What the "Worst layer SQNR" headline means beside the output figure, in words the page and the HTML report share: a
 * red inner layer (UltraFace: 7.47 dB) next to a green output cosine (0.99995) read as a contradiction. The layer
 * figure is one tensor inside the model, where the error is largest; the output figure is what the model hands on and
 * what the targets judge. Where the output reads well and the layer does not, the layers after it absorbed the error.
 */
import { dbSeverity, type Severity } from './htmlText.ts';

/** The line under the worst layer's SQNR; `outputSeverity` is the headline output figure's (cosineSeverity). */
export function worstLayerMeaning(layerSqnr: number, outputSeverity: Severity): string {
  const what = 'one tensor inside the model, not its output: where to look first when the output is off';
  return outputSeverity === 'good' && dbSeverity(layerSqnr) !== 'good'
    ? `${what}. Here the output reads well: the layers after it absorb this error`
    : what;
}
