/**
 * How cytoscape draws the boxes and edges it holds: its stylesheet (numbers from detailPainter.ts's DETAIL_STYLE, which
 * the first picture is painted with, so the hand-over to cytoscape shows no change), a box's visual-state flags as
 * cytoscape classes, and an edge label's width in cytoscape's font. Imports cytoscape's types only.
 */
import type { StylesheetJson } from 'cytoscape';
import { DETAIL_STYLE } from './detailPainter.ts';
import { FLAG } from './flags.ts';

const FLAG_CLASSES = Object.entries(FLAG) as [keyof typeof FLAG, number][];

const S = DETAIL_STYLE;
/** cytoscape's stylesheet for the boxes and edges it holds. */
export const CYTOSCAPE_STYLE: StylesheetJson = [
  {
    selector: 'node',
    style: {
      shape: 'round-rectangle',
      width: 'data(w)',
      height: 'data(h)',
      'background-color': 'data(colour)',
      label: 'data(label)',
      color: S.nodeTextColour,
      'font-size': S.nodeFontSize,
      'font-family': S.font,
      'text-wrap': 'wrap',
      'text-valign': 'center',
      'text-halign': 'center',
      'min-zoomed-font-size': S.nodeMinZoomedFontSize,
      'border-width': 0,
    },
  },
  {
    selector: 'node.excluded',
    style: {
      'background-opacity': S.excluded.opacity,
      color: S.excluded.textColour,
      'border-width': S.excluded.borderWidth,
      'border-style': 'dashed',
      'border-color': S.excluded.borderColour,
    },
  },
  {
    selector: 'node.preview',
    style: {
      'underlay-color': S.underlay.preview,
      'underlay-padding': S.underlay.padding,
      'underlay-opacity': S.underlay.opacity,
      'underlay-shape': 'round-rectangle',
    },
  },
  {
    selector: 'node.hovered',
    style: {
      'underlay-color': S.underlay.hovered,
      'underlay-padding': S.underlay.padding,
      'underlay-opacity': S.underlay.opacity,
      'underlay-shape': 'round-rectangle',
    },
  },
  {
    selector: 'node.start',
    style: { 'border-width': S.border.width, 'border-style': 'solid', 'border-color': S.border.start },
  },
  {
    selector: 'node.end',
    style: { 'border-width': S.border.width, 'border-style': 'solid', 'border-color': S.border.end },
  },
  {
    selector: 'node.picked',
    style: { 'border-width': S.border.width, 'border-style': 'solid', 'border-color': S.border.picked },
  },
  {
    selector: 'node.match',
    style: {
      'outline-width': S.outline.match.width,
      'outline-color': S.outline.match.colour,
      'outline-offset': S.outline.match.offset,
    },
  },
  {
    selector: 'node.selected',
    style: {
      'outline-width': S.outline.selected.width,
      'outline-color': S.outline.selected.colour,
      'outline-offset': S.outline.selected.offset,
    },
  },
  {
    selector: 'edge',
    style: {
      width: S.edgeWidth,
      'curve-style': 'straight',
      'line-color': S.edgeColour,
      'target-arrow-shape': 'triangle',
      'target-arrow-color': S.edgeColour,
      'arrow-scale': S.arrowScale,
      label: 'data(label)',
      'text-margin-x': (edge: cytoscape.EdgeSingular) => edge.data('lx') as number,
      'text-margin-y': (edge: cytoscape.EdgeSingular) => edge.data('ly') as number,
      'font-size': S.edgeFontSize,
      'font-family': S.font,
      color: S.edgeTextColour,
      'text-background-color': S.edgeTextBackground,
      'text-background-opacity': S.edgeTextBackgroundOpacity,
      'text-background-padding': '1px',
      'min-zoomed-font-size': S.edgeMinZoomedFontSize,
    },
  },
];

/** The width of an edge label as cytoscape draws it (its font, measured on a canvas). */
export function edgeLabelMeasure(): (text: string) => number {
  const ctx = document.createElement('canvas').getContext('2d')!;
  ctx.font = `normal normal ${S.edgeFontSize}px ${S.font}`;
  return (text) => ctx.measureText(text).width;
}

/** A box's visual-state flags as cytoscape classes (`excluded selected`…), the names of FLAG. */
export function classesOf(flags: number): string {
  let out = '';
  for (const [name, bit] of FLAG_CLASSES) if (flags & bit) out += out ? ` ${name}` : name;
  return out;
}
