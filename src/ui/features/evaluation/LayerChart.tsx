/**
 * The per-layer SQNR chart: the core's inline SVG (the very chart of the HTML report), worst layers
 * numbered. The SVG is built by core/report/charts.ts from numbers and escaped names only.
 */
import { useMemo } from 'react';
import { layerChart } from '../../../core/report/charts.ts';
import type { ReportLayers } from '../../../core/report/index.ts';

export function LayerChart({ layers }: { layers: ReportLayers }) {
  const svg = useMemo(() => layerChart(layers.rows, { highlight: layers.worst.slice(0, 10) }), [layers]);
  return <div className="layer-chart" data-testid="eval-layer-chart" dangerouslySetInnerHTML={{ __html: svg }} />;
}
