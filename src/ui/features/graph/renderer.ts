/**
 * Draws a laid-out graph view: cytoscape for the boxes near the viewport (labels, edge shapes, real
 * hit-testing and clicks), and under it a plain canvas "overview" that draws every other box and edge
 * as coloured rectangles and lines. A flat cytoscape of more than a few thousand elements is sluggish
 * (NOTES.md: 5 s first frame, 0.7 s a pan frame at 20,000), so cytoscape only ever holds the boxes in
 * and around the viewport, and only when few enough are in view and the zoom makes labels readable;
 * zoomed out, the overview canvas is the picture. While the viewport moves, the overview is a cached
 * picture moved and scaled (one drawImage a frame, like cytoscape's textureOnViewport); once it rests,
 * the overview is drawn afresh and the cytoscape window follows.
 *
 * Visual state (excluded, preview, picks, selection, search matches, heat) arrives as one flag array
 * per box and is applied to cytoscape as class changes in one batch. This is the only module that
 * imports cytoscape (ARCHITECTURE: each library in one place).
 */
import cytoscape, { type Core, type EventObject, type ElementDefinition, type StylesheetJson } from 'cytoscape';
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { FAMILY_COLOURS } from './families.ts';
import { FLAG } from './flags.ts';
import type { GraphView } from './viewModel.ts';

const FLAG_CLASSES = Object.entries(FLAG) as [keyof typeof FLAG, number][];

/** At most this many boxes are handed to cytoscape; with more in view the overview alone draws. */
export const DETAIL_LIMIT = 600;
/** The window covers the viewport plus this share of its size on each side. */
const WINDOW_MARGIN = 0.5;
const GRID_CELL = 512;
/** The cached overview extends this share of the viewport beyond each side. */
const CACHE_MARGIN = 0.5;
/** From this zoom the overview writes op types on its boxes (11 px text reads from about 5 px). */
const LABEL_ZOOM = 0.45;
const MAX_OVERVIEW_LABELS = 4000;
/** Below this zoom labels are unreadable: the overview alone draws, whatever the count. */
export const MIN_DETAIL_ZOOM = 0.3;
const SETTLE_MS = 90;

export interface TapModifiers {
  shift: boolean;
  alt: boolean;
  ctrl: boolean;
}

export interface RendererEvents {
  /** A box was clicked (in cytoscape or on the overview). */
  onTap(box: number, modifiers: TapModifiers): void;
  onBackgroundTap(): void;
  /** The first complete picture is on screen. */
  onDrawn(): void;
}

const STYLE: StylesheetJson = [
  {
    selector: 'node',
    style: {
      shape: 'round-rectangle',
      width: 'data(w)',
      height: 'data(h)',
      'background-color': 'data(colour)',
      label: 'data(label)',
      color: '#ffffff',
      'font-size': 11,
      'font-family': 'system-ui, sans-serif',
      'text-wrap': 'wrap',
      'text-valign': 'center',
      'text-halign': 'center',
      'min-zoomed-font-size': 7,
      'border-width': 0,
    },
  },
  { selector: 'node.excluded', style: { 'background-opacity': 0.32, color: '#2b3440', 'border-width': 2, 'border-style': 'dashed', 'border-color': '#7b8794' } },
  { selector: 'node.preview', style: { 'underlay-color': '#f59e0b', 'underlay-padding': 7, 'underlay-opacity': 0.75, 'underlay-shape': 'round-rectangle' } },
  { selector: 'node.hovered', style: { 'underlay-color': '#ec4899', 'underlay-padding': 7, 'underlay-opacity': 0.75, 'underlay-shape': 'round-rectangle' } },
  { selector: 'node.start', style: { 'border-width': 4, 'border-style': 'solid', 'border-color': '#16a34a' } },
  { selector: 'node.end', style: { 'border-width': 4, 'border-style': 'solid', 'border-color': '#dc2626' } },
  { selector: 'node.picked', style: { 'border-width': 4, 'border-style': 'solid', 'border-color': '#7c3aed' } },
  { selector: 'node.match', style: { 'outline-width': 3, 'outline-color': '#facc15', 'outline-offset': 2 } },
  { selector: 'node.selected', style: { 'outline-width': 4, 'outline-color': '#2f7de1', 'outline-offset': 3 } },
  {
    selector: 'edge',
    style: {
      width: 1.2,
      'curve-style': 'straight',
      'line-color': '#98a2af',
      'target-arrow-shape': 'triangle',
      'target-arrow-color': '#98a2af',
      'arrow-scale': 0.7,
      label: 'data(label)',
      'font-size': 9,
      color: '#4a5562',
      'text-background-color': '#f5f7fa',
      'text-background-opacity': 0.85,
      'text-background-padding': '1px',
      'min-zoomed-font-size': 8,
    },
  },
];

/** Boxes bucketed by a uniform grid over the layout, for windowing and hit-testing. */
class Grid {
  private readonly cells = new Map<number, number[]>();
  constructor(private readonly view: GraphView, private readonly layout: LayoutResult) {
    view.boxes.forEach((b, i) => {
      const x0 = Math.floor((layout.x[i] - b.width / 2) / GRID_CELL), x1 = Math.floor((layout.x[i] + b.width / 2) / GRID_CELL);
      const y0 = Math.floor((layout.y[i] - b.height / 2) / GRID_CELL), y1 = Math.floor((layout.y[i] + b.height / 2) / GRID_CELL);
      for (let gx = x0; gx <= x1; gx++) for (let gy = y0; gy <= y1; gy++) this.bucket(gx, gy).push(i);
    });
  }
  private key(gx: number, gy: number) {
    return gx * 1_000_003 + gy;
  }
  private bucket(gx: number, gy: number) {
    const k = this.key(gx, gy);
    let list = this.cells.get(k);
    if (!list) this.cells.set(k, (list = []));
    return list;
  }
  /** Boxes overlapping the rectangle; stops (returning null) past `limit`. */
  query(x1: number, y1: number, x2: number, y2: number, limit: number): Set<number> | null {
    const out = new Set<number>();
    const gx0 = Math.floor(x1 / GRID_CELL), gx1 = Math.floor(x2 / GRID_CELL);
    const gy0 = Math.floor(y1 / GRID_CELL), gy1 = Math.floor(y2 / GRID_CELL);
    if ((gx1 - gx0 + 1) * (gy1 - gy0 + 1) > 4 * this.cells.size) {
      // Zoomed far out: every box is a candidate, walking cells would be slower.
      if (this.view.boxes.length > limit) {
        let count = 0;
        for (let i = 0; i < this.view.boxes.length; i++) if (this.overlaps(i, x1, y1, x2, y2) && ++count > limit) return null;
      }
      for (let i = 0; i < this.view.boxes.length; i++) if (this.overlaps(i, x1, y1, x2, y2)) out.add(i);
      return out;
    }
    for (let gx = gx0; gx <= gx1; gx++) {
      for (let gy = gy0; gy <= gy1; gy++) {
        for (const i of this.cells.get(this.key(gx, gy)) ?? []) {
          if (!out.has(i) && this.overlaps(i, x1, y1, x2, y2)) {
            out.add(i);
            if (out.size > limit) return null;
          }
        }
      }
    }
    return out;
  }
  overlaps(i: number, x1: number, y1: number, x2: number, y2: number): boolean {
    const b = this.view.boxes[i];
    const x = this.layout.x[i], y = this.layout.y[i];
    return x + b.width / 2 >= x1 && x - b.width / 2 <= x2 && y + b.height / 2 >= y1 && y - b.height / 2 <= y2;
  }
}

export class GraphRenderer {
  readonly cy: Core;
  private readonly overview: HTMLCanvasElement;
  /** The overview drawn at rest (viewport plus margin), and the zoom and offset it was drawn at. */
  private readonly cache = document.createElement('canvas');
  private cacheView: { zoom: number; x: number; y: number } | null = null;
  private readonly grid: Grid;
  private readonly detailed: Uint8Array;
  private detailedCount = 0;
  private flags: Uint8Array;
  private heat: (string | null)[] | null = null;
  private frame = 0;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private drawnOnce = false;
  private destroyed = false;
  private readonly resizeObserver: ResizeObserver;
  /** Edges by box, for adding a box's edges to the window. */
  private readonly edgesOf: number[][];
  /** Edges cytoscape holds. */
  private readonly edgeIn: Uint8Array;

  constructor(private readonly host: HTMLElement, private readonly view: GraphView, private readonly layout: LayoutResult, private readonly events: RendererEvents) {
    const n = view.boxes.length;
    this.detailed = new Uint8Array(n);
    this.flags = new Uint8Array(n);
    this.grid = new Grid(view, layout);
    this.edgeIn = new Uint8Array(view.edges.length);
    this.edgesOf = Array.from({ length: n }, () => []);
    view.edges.forEach((e, k) => {
      this.edgesOf[e.source].push(k);
      this.edgesOf[e.target].push(k);
    });
    this.overview = document.createElement('canvas');
    this.overview.className = 'graph-overview';
    host.appendChild(this.overview);
    const cyHost = document.createElement('div');
    cyHost.className = 'graph-cy';
    host.appendChild(cyHost);
    this.cy = cytoscape({
      container: cyHost,
      elements: [],
      style: STYLE,
      layout: { name: 'preset' },
      minZoom: 1e-3,
      maxZoom: 4,
      boxSelectionEnabled: false,
      autoungrabify: true,
      autounselectify: true,
      textureOnViewport: true,
      hideEdgesOnViewport: false,
      pixelRatio: 1,
    });
    this.cy.on('viewport', () => this.viewportChanged());
    this.cy.on('tap', (evt: EventObject) => this.tapped(evt));
    // cytoscape's tap event does not carry the keys reliably: note them on the pointer going down.
    host.addEventListener('pointerdown', this.noteModifiers, true);
    this.resizeObserver = new ResizeObserver(() => {
      this.cy.resize();
      this.cacheView = null;
      this.viewportChanged();
    });
    this.resizeObserver.observe(host);
    this.fit();
    this.syncWindow();
  }

  private modifiers: TapModifiers = { shift: false, alt: false, ctrl: false };
  private readonly noteModifiers = (e: PointerEvent) => {
    this.modifiers = { shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey || e.metaKey };
  };

  private tapped(evt: EventObject) {
    const modifiers = this.modifiers;
    let box = -1;
    if (evt.target !== this.cy && evt.target.isNode?.()) box = Number(evt.target.data('box'));
    else box = this.hit(evt.position.x, evt.position.y);
    if (box >= 0) this.events.onTap(box, modifiers);
    else this.events.onBackgroundTap();
  }

  /** The box under a model-space point, or -1. */
  hit(x: number, y: number): number {
    const found = this.grid.query(x, y, x, y, Infinity);
    return found && found.size ? [...found][0] : -1;
  }

  private size() {
    return { w: this.host.clientWidth || 1, h: this.host.clientHeight || 1 };
  }

  /** The whole graph in view. */
  fit(): void {
    const [x1, y1, x2, y2] = this.layout.bounds;
    const { w, h } = this.size();
    const pad = 30;
    const zoom = Math.min(1.2, Math.max(1e-3, Math.min((w - 2 * pad) / Math.max(1, x2 - x1), (h - 2 * pad) / Math.max(1, y2 - y1))));
    this.cy.viewport({ zoom, pan: { x: w / 2 - ((x1 + x2) / 2) * zoom, y: h / 2 - ((y1 + y2) / 2) * zoom } });
  }

  /** Centres a box, zoomed in enough to read it. */
  focus(box: number): void {
    const { w, h } = this.size();
    const zoom = Math.max(this.cy.zoom(), 1);
    this.cy.viewport({ zoom, pan: { x: w / 2 - this.layout.x[box] * zoom, y: h / 2 - this.layout.y[box] * zoom } });
  }

  zoomBy(factor: number): void {
    const { w, h } = this.size();
    this.cy.zoom({ level: Math.min(4, Math.max(1e-3, this.cy.zoom() * factor)), renderedPosition: { x: w / 2, y: h / 2 } });
  }

  /** Where a box is on the page (client coordinates), for tests that click it. */
  clientPosition(box: number): { x: number; y: number } {
    const rect = this.host.getBoundingClientRect();
    const pan = this.cy.pan(), zoom = this.cy.zoom();
    return { x: rect.left + this.layout.x[box] * zoom + pan.x, y: rect.top + this.layout.y[box] * zoom + pan.y };
  }

  /** No window update or overview frame pending: what is on screen matches the viewport. */
  get idle(): boolean {
    return this.settleTimer === undefined && this.frame === 0;
  }

  /** Whether cytoscape draws this box now (the overview draws the rest). */
  isDetailed(box: number): boolean {
    return this.detailed[box] === 1;
  }

  /** New visual state: flags per box (FLAG bits) and heat colours (null: family colours). */
  setVisualState(flags: Uint8Array, heat: (string | null)[] | null): void {
    const old = this.flags;
    const heatChanged = heat !== this.heat;
    this.flags = flags;
    this.heat = heat;
    this.cy.batch(() => {
      this.cy.nodes().forEach((node) => {
        const b = Number(node.data('box'));
        if (old[b] !== flags[b]) node.classes(classesOf(flags[b]));
        if (heatChanged) node.data('colour', this.colourOf(b));
      });
    });
    this.cacheView = null;
    this.scheduleDraw();
  }

  /** The fill box `box` is drawn with. */
  fillOf(box: number): string {
    return this.colourOf(box);
  }

  private colourOf(box: number): string {
    return this.heat?.[box] ?? FAMILY_COLOURS[this.view.boxes[box].family];
  }

  private viewportChanged() {
    this.scheduleDraw();
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      this.syncWindow();
    }, SETTLE_MS);
  }

  /** During motion: move and scale the cached picture (one drawImage); the full drawing waits for rest. */
  private scheduleDraw() {
    if (this.frame || this.destroyed) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.cacheView) this.blit();
      else this.redraw();
    });
  }

  /** Draws the overview afresh (into the cache) and shows it. */
  private redraw() {
    this.renderCache();
    this.blit();
  }

  /** Hands cytoscape the boxes around the viewport when few enough are in view, else none. */
  syncWindow(): void {
    if (this.destroyed) return;
    const e = this.cy.extent();
    const mx = e.w * WINDOW_MARGIN, my = e.h * WINDOW_MARGIN;
    const inView = this.cy.zoom() >= MIN_DETAIL_ZOOM ? this.grid.query(e.x1, e.y1, e.x2, e.y2, DETAIL_LIMIT) : null;
    const wanted = inView ? this.grid.query(e.x1 - mx, e.y1 - my, e.x2 + mx, e.y2 + my, DETAIL_LIMIT * 2.5) ?? inView : new Set<number>();
    const view = this.view;
    this.cy.batch(() => {
      const gone = this.cy.nodes().filter((node) => !wanted.has(Number(node.data('box'))));
      gone.forEach((node) => {
        const b = Number(node.data('box'));
        this.detailed[b] = 0;
        for (const k of this.edgesOf[b]) this.edgeIn[k] = 0;
      });
      this.cy.remove(gone);
      const added: ElementDefinition[] = [];
      const fresh: number[] = [];
      for (const b of wanted) {
        if (this.detailed[b]) continue;
        this.detailed[b] = 1;
        fresh.push(b);
        const box = view.boxes[b];
        added.push({
          group: 'nodes',
          data: { id: `b${b}`, box: b, label: `${box.title}\n${box.subtitle}`, w: box.width, h: box.height, colour: this.colourOf(b) },
          position: { x: this.layout.x[b], y: this.layout.y[b] },
          classes: classesOf(this.flags[b]),
        });
      }
      for (const b of fresh) {
        for (const k of this.edgesOf[b]) {
          const edge = view.edges[k];
          if (this.edgeIn[k] || !this.detailed[edge.source] || !this.detailed[edge.target]) continue;
          this.edgeIn[k] = 1;
          added.push({ group: 'edges', data: { id: `e${k}`, source: `b${edge.source}`, target: `b${edge.target}`, label: edge.label } });
        }
      }
      this.cy.add(added);
    });
    this.detailedCount = wanted.size;
    this.redraw();
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      requestAnimationFrame(() => requestAnimationFrame(() => !this.destroyed && this.events.onDrawn()));
    }
  }

  /**
   * Draws every box and edge cytoscape does not hold into the cache canvas, which covers the viewport
   * and a margin around it (so a pan shows drawn content until the full redraw at rest).
   */
  private renderCache() {
    const { w, h } = this.size();
    const mw = Math.round(w * CACHE_MARGIN), mh = Math.round(h * CACHE_MARGIN);
    const canvas = this.cache;
    if (canvas.width !== w + 2 * mw || canvas.height !== h + 2 * mh) {
      canvas.width = w + 2 * mw;
      canvas.height = h + 2 * mh;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const zoom = this.cy.zoom(), pan = this.cy.pan();
    this.cacheView = { zoom, x: pan.x + mw, y: pan.y + mh };
    ctx.setTransform(zoom, 0, 0, zoom, pan.x + mw, pan.y + mh);
    const x1 = -(pan.x + mw) / zoom, y1 = -(pan.y + mh) / zoom, x2 = (w + mw - pan.x) / zoom, y2 = (h + mh - pan.y) / zoom;
    const { boxes, edges } = this.view;
    const { x, y } = this.layout;
    const px = 1 / zoom;

    ctx.beginPath();
    for (const e of edges) {
      if (this.detailed[e.source] && this.detailed[e.target]) continue;
      const sx = x[e.source], sy = y[e.source] + boxes[e.source].height / 2;
      const tx = x[e.target], ty = y[e.target] - boxes[e.target].height / 2;
      if ((sx < x1 && tx < x1) || (sx > x2 && tx > x2) || (sy < y1 && ty < y1) || (sy > y2 && ty > y2)) continue;
      ctx.moveTo(sx, sy);
      ctx.lineTo(tx, ty);
    }
    ctx.lineWidth = Math.max(1.2, px);
    ctx.strokeStyle = '#a3adb9';
    ctx.stroke();

    const fills = new Map<string, Path2D>();
    const outlines = new Map<string, Path2D>();
    const washed = new Path2D();
    const path = (m: Map<string, Path2D>, key: string) => {
      let p = m.get(key);
      if (!p) m.set(key, (p = new Path2D()));
      return p;
    };
    const minSize = 2 * px;
    const labelled: number[] = [];
    for (let i = 0; i < boxes.length; i++) {
      if (this.detailed[i]) continue;
      const b = boxes[i];
      const bw = Math.max(b.width, minSize), bh = Math.max(b.height, minSize);
      const left = x[i] - bw / 2, top = y[i] - bh / 2;
      if (left > x2 || left + bw < x1 || top > y2 || top + bh < y1) continue;
      path(fills, this.colourOf(i)).rect(left, top, bw, bh);
      labelled.push(i);
      const f = this.flags[i];
      if (f & FLAG.excluded) washed.rect(left, top, bw, bh);
      const outline = f & FLAG.selected ? '#2f7de1' : f & FLAG.start ? '#16a34a' : f & FLAG.end ? '#dc2626' : f & FLAG.picked ? '#7c3aed' : f & FLAG.hovered ? '#ec4899' : f & FLAG.preview ? '#f59e0b' : f & FLAG.match ? '#facc15' : '';
      if (outline) path(outlines, outline).rect(left - 4 * px, top - 4 * px, bw + 8 * px, bh + 8 * px);
    }
    for (const [colour, p] of fills) {
      ctx.fillStyle = colour;
      ctx.fill(p);
    }
    ctx.fillStyle = 'rgba(245, 247, 250, 0.68)';
    ctx.fill(washed);
    ctx.lineWidth = 3 * px;
    for (const [colour, p] of outlines) {
      ctx.strokeStyle = colour;
      ctx.stroke(p);
    }
    // Titles where they can be read (too many boxes in view for cytoscape, but zoomed in enough).
    if (zoom >= LABEL_ZOOM && labelled.length <= MAX_OVERVIEW_LABELS) {
      ctx.fillStyle = '#ffffff';
      ctx.font = '600 11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (const i of labelled) ctx.fillText(boxes[i].title, x[i], y[i], boxes[i].width - 6);
    }
  }

  /** Boxes whose visual state has the flag now. */
  boxesWith(flag: number): number[] {
    const out: number[] = [];
    this.flags.forEach((f, b) => f & flag && out.push(b));
    return out;
  }

  /** Shows the cached picture moved and scaled to the current viewport. */
  private blit() {
    const { w, h } = this.size();
    const canvas = this.overview;
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.clearRect(0, 0, w, h);
    const view = this.cacheView;
    if (!view) return;
    const zoom = this.cy.zoom(), pan = this.cy.pan();
    const s = zoom / view.zoom;
    ctx.drawImage(this.cache, pan.x - view.x * s, pan.y - view.y * s, this.cache.width * s, this.cache.height * s);
  }

  /** How many boxes cytoscape holds now. */
  get detailedBoxes(): number {
    return this.detailedCount;
  }

  destroy(): void {
    this.destroyed = true;
    clearTimeout(this.settleTimer);
    cancelAnimationFrame(this.frame);
    this.resizeObserver.disconnect();
    this.host.removeEventListener('pointerdown', this.noteModifiers, true);
    this.cy.destroy();
    this.host.replaceChildren();
  }
}

function classesOf(flags: number): string {
  let out = '';
  for (const [name, bit] of FLAG_CLASSES) if (flags & bit) out += out ? ` ${name}` : name;
  return out;
}
