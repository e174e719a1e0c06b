/**
 * Draws a laid-out graph view: cytoscape for the boxes near the viewport (labels, edge shapes, real
 * hit-testing and clicks), and under it a plain canvas "overview" that draws every other box and edge
 * as coloured rectangles and lines. A flat cytoscape of more than a few thousand elements is sluggish
 * (docs/NOTES.md: 5 s first frame, 0.7 s a pan frame at 20,000), so cytoscape only ever holds the boxes in
 * and around the viewport, and only when few enough are in view and the zoom makes labels readable;
 * zoomed out, the overview canvas is the picture. While the viewport moves, the overview is a cached
 * picture moved and scaled (one drawImage a frame, like cytoscape's textureOnViewport); once it rests,
 * the overview is drawn afresh and the cytoscape window follows.
 *
 * The first picture is painted on the plain canvas in the constructor, the boxes meant for cytoscape in its
 * style (detailPainter.ts), so a graph is on screen in the frame its layout is done. cytoscape is created after
 * that frame; the canvas keeps painting those boxes until cytoscape's first render, in whose frame the canvas
 * stops (no visible change). Until then the renderer holds the viewport itself and hit-tests clicks on the canvas.
 *
 * Visual state (excluded, preview, picks, selection, search matches, heat) arrives as one flag array
 * per box and is applied to cytoscape as class changes in one batch. This is the only module that
 * loads cytoscape (docs/ARCHITECTURE.md: each third-party library in one place; cytoscapeStyle.ts imports its types).
 * Beside it: boxGrid.ts (which boxes a rectangle holds), overviewPainter.ts (the canvas), cytoscapeStyle.ts.
 */
import type cytoscape from 'cytoscape';
import type { Core, EventObject, ElementDefinition } from 'cytoscape';
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { BoxGrid } from './boxGrid.ts';
import { classesOf, CYTOSCAPE_STYLE, edgeLabelMeasure } from './cytoscapeStyle.ts';
import { placeEdgeLabels, type EdgeLabels } from './edgeLabels.ts';
import { FAMILY_COLOURS } from './families.ts';
import { paintOverview, type OverviewScene } from './overviewPainter.ts';
import type { DrawnView } from './viewModel.ts';
import { ACTUAL_SIZE, MAX_ZOOM, MIN_ZOOM, nextZoom } from './zoomSteps.ts';

let cytoscapeCode: Promise<typeof cytoscape> | null = null;
/**
 * cytoscape's code (about 400 KB), fetched apart from the graph step's: the first picture does not need it, so a
 * model dropped before the idle page has fetched it is drawn without waiting for it. The idle page calls this too.
 */
export function loadCytoscape(): Promise<typeof cytoscape> {
  cytoscapeCode ??= import('cytoscape').then((m) => m.default);
  cytoscapeCode.catch(() => (cytoscapeCode = null)); // a failed fetch may be retried
  return cytoscapeCode;
}

/** At most this many boxes are handed to cytoscape; with more in view the overview alone draws. */
export const DETAIL_LIMIT = 600;
/** The window covers the viewport plus this share of its size on each side. */
const WINDOW_MARGIN = 0.5;
/** The cached overview extends this share of the viewport beyond each side. */
const CACHE_MARGIN = 0.5;
/** Below this zoom labels are unreadable: the overview alone draws, whatever the count. */
export const MIN_DETAIL_ZOOM = 0.3;
const SETTLE_MS = 90;
/** Room left around the graph when it is fitted, and above its top when it opens at 100 %. */
const PAD = 30;

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
  /** The viewport moved (pan, zoom, resize; also when moved by code). The split view follows it. */
  onViewport?(): void;
}

export interface InitialState {
  flags: Uint8Array;
  heat: (string | null)[] | null;
}

export class GraphRenderer {
  /** null until created after the first picture. */
  private cy: Core | null = null;
  private readonly cyHost: HTMLDivElement;
  /** The viewport while cytoscape is not there yet (afterwards cytoscape holds it). */
  private viewport = { zoom: 1, x: 0, y: 0 };
  /** The boxes meant for cytoscape (the window); the canvas paints them in detail until cytoscape has drawn. */
  private window = new Set<number>();
  /** cytoscape has drawn its first picture: from then on it, not the canvas, draws the boxes it holds. */
  private handedOver = false;
  private readonly overview: HTMLCanvasElement;
  /** The overview drawn at rest (viewport plus margin), and the zoom and offset it was drawn at. */
  private readonly cache = document.createElement('canvas');
  private cacheView: { zoom: number; x: number; y: number } | null = null;
  private readonly grid: BoxGrid;
  private readonly detailed: Uint8Array;
  private detailedCount = 0;
  private flags: Uint8Array;
  private heat: (string | null)[] | null = null;
  private frame = 0;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private attachTimer: ReturnType<typeof setTimeout> | undefined;
  private destroyed = false;
  private readonly resizeObserver: ResizeObserver;
  private lastSize = { w: 0, h: 0 };
  /** The host's size the current pan was set for (a resize moves the pan to keep the centre). */
  private panSize = { w: 0, h: 0 };
  /** Edges by box, for adding a box's edges to the window. */
  private readonly edgesOf: number[][];
  /** Edges cytoscape holds. */
  private readonly edgeIn: Uint8Array;
  /** Which edges show their shape label, and where: no two overlap (edgeLabels.ts). */
  private readonly labels: EdgeLabels;

  constructor(
    private readonly host: HTMLElement,
    private readonly view: DrawnView,
    private readonly layout: LayoutResult,
    private readonly events: RendererEvents,
    initial?: InitialState,
  ) {
    const n = view.boxes.length;
    this.detailed = new Uint8Array(n);
    this.flags = initial?.flags.length === n ? initial.flags : new Uint8Array(n);
    this.heat = initial?.heat ?? null;
    this.grid = new BoxGrid(view, layout);
    // (A query with limit 0 stops, returning null, at the first box it finds.)
    this.labels = placeEdgeLabels(
      view,
      layout,
      edgeLabelMeasure(),
      (x1, y1, x2, y2) => this.grid.query(x1, y1, x2, y2, 0) === null,
    );
    this.edgeIn = new Uint8Array(view.edges.length);
    this.edgesOf = Array.from({ length: n }, () => []);
    view.edges.forEach((e, k) => {
      this.edgesOf[e.source].push(k);
      this.edgesOf[e.target].push(k);
    });
    this.overview = document.createElement('canvas');
    this.overview.className = 'graph-overview';
    host.appendChild(this.overview);
    this.cyHost = document.createElement('div');
    this.cyHost.className = 'graph-cy';
    host.appendChild(this.cyHost);
    // cytoscape's tap event does not carry the keys reliably: note them on the pointer going down.
    host.addEventListener('pointerdown', this.noteModifiers, true);
    host.addEventListener('click', this.clickBeforeCytoscape);
    // A resize (the window, or the split view's panes going from side by side to stacked) keeps the model point
    // at the centre of the view where it was: a centred selection stays centred, and two panes that followed each
    // other still do.
    this.resizeObserver = new ResizeObserver(() => {
      const { w, h } = this.size();
      const before = this.panSize;
      if (w === before.w && h === before.h) return; // the observer's first call, or no change
      const zoom = this.zoom(),
        pan = this.pan();
      const centre = { x: (before.w / 2 - pan.x) / zoom, y: (before.h / 2 - pan.y) / zoom };
      this.cy?.resize();
      this.cacheView = null;
      this.panSize = { w, h };
      this.centreOn(centre.x, centre.y, zoom);
    });
    this.resizeObserver.observe(host);

    // The first picture, now: the graph as it opens, the window's boxes painted as cytoscape would.
    this.viewport = this.opening(); // not setViewport(): no redraw of the cache in the frame that shows this picture
    this.panSize = this.size();
    this.window = this.windowBoxes();
    this.paintFirstPicture();
    this.events.onDrawn();
    // cytoscape once that frame is out.
    requestAnimationFrame(() => {
      this.attachTimer = setTimeout(() => {
        loadCytoscape().then(
          (create) => this.attachCytoscape(create),
          (e: unknown) => console.error('The graph stays a plain picture: cytoscape could not be loaded', e),
        );
      }, 0);
    });
  }

  private modifiers: TapModifiers = { shift: false, alt: false, ctrl: false };
  private readonly noteModifiers = (e: PointerEvent) => {
    this.modifiers = { shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey || e.metaKey };
    // cytoscape keeps the container's place on the page and forgets it only on a scroll, a resize or a transition: a
    // press after the canvas moved otherwise (a card above grew), or after a scroll whose event is not out yet (a
    // scroll and a press in one frame, under load), hit the point the old place gave, a box away or the background.
    // It measures the place again before it sees the press (pointerdown comes before mousedown; same size: no
    // canvas is reallocated).
    this.cy?.resize();
  };

  /** Clicks on the first picture, before cytoscape handles them. */
  private readonly clickBeforeCytoscape = (e: MouseEvent) => {
    if (this.cy) return;
    const rect = this.host.getBoundingClientRect();
    const { zoom, x, y } = this.viewport;
    const box = this.hit((e.clientX - rect.left - x) / zoom, (e.clientY - rect.top - y) / zoom);
    this.modifiers = { shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey || e.metaKey };
    if (box >= 0) this.events.onTap(box, this.modifiers);
    else this.events.onBackgroundTap();
  };

  private attachCytoscape(create: typeof cytoscape) {
    if (this.destroyed || this.cy) return;
    const { zoom, x, y } = this.viewport;
    const cy = create({
      container: this.cyHost,
      elements: [],
      style: CYTOSCAPE_STYLE,
      layout: { name: 'preset' },
      zoom,
      pan: { x, y },
      minZoom: MIN_ZOOM,
      maxZoom: MAX_ZOOM,
      boxSelectionEnabled: false,
      autoungrabify: true,
      autounselectify: true,
      textureOnViewport: true,
      hideEdgesOnViewport: false,
      pixelRatio: 1,
    });
    this.cy = cy;
    cy.on('viewport', () => this.viewportChanged());
    cy.on('tap', (evt: EventObject) => this.tapped(evt));
    this.host.removeEventListener('click', this.clickBeforeCytoscape);
    // Hand over in the frame cytoscape first draws in: the canvas then stops painting the boxes cytoscape holds.
    cy.one('render', () => {
      this.handedOver = true;
      this.cacheView = null;
      if (!this.destroyed) this.redraw();
    });
    this.syncWindow(false);
    if (this.detailedCount === 0) {
      this.handedOver = true; // nothing for cytoscape to draw (zoomed out): the canvas is the picture
      this.cacheView = null;
      this.scheduleDraw();
    }
  }

  private tapped(evt: EventObject) {
    const modifiers = this.modifiers;
    const box =
      evt.target !== this.cy && evt.target.isNode?.()
        ? Number(evt.target.data('box'))
        : this.hit(evt.position.x, evt.position.y);
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

  private zoom(): number {
    return this.cy ? this.cy.zoom() : this.viewport.zoom;
  }

  private pan(): { x: number; y: number } {
    return this.cy ? this.cy.pan() : { x: this.viewport.x, y: this.viewport.y };
  }

  private setViewport(zoom: number, pan: { x: number; y: number }) {
    this.panSize = this.size();
    if (this.cy) {
      this.cy.viewport({ zoom, pan });
      return;
    }
    this.viewport = { zoom, x: pan.x, y: pan.y };
    this.viewportChanged();
  }

  /** The model-space rectangle in view. */
  private extent() {
    const { w, h } = this.size();
    const zoom = this.zoom(),
      pan = this.pan();
    const x1 = -pan.x / zoom,
      y1 = -pan.y / zoom;
    return { x1, y1, x2: x1 + w / zoom, y2: y1 + h / zoom, w: w / zoom, h: h / zoom };
  }

  /** The whole graph in view. */
  fit(): void {
    const { zoom, x, y } = this.fitted();
    this.setViewport(zoom, { x, y });
  }

  private fitted() {
    const [x1, y1, x2, y2] = this.layout.bounds;
    const { w, h } = this.size();
    const zoom = Math.min(
      1.2,
      Math.max(MIN_ZOOM, Math.min((w - 2 * PAD) / Math.max(1, x2 - x1), (h - 2 * PAD) / Math.max(1, y2 - y1))),
    );
    return { zoom, x: w / 2 - ((x1 + x2) / 2) * zoom, y: h / 2 - ((y1 + y2) / 2) * zoom };
  }

  /**
   * How a graph opens, as Netron opens it: whole when it fits at a zoom where labels read, else at 100 % with its
   * top (the inputs) at the top of the pane, centred on the inputs (or on the whole graph when it is narrower).
   */
  private opening() {
    const fit = this.fitted();
    if (fit.zoom >= ACTUAL_SIZE) return fit;
    const [x1, y1, x2] = this.layout.bounds;
    const { w } = this.size();
    const zoom = ACTUAL_SIZE;
    let cx = (x1 + x2) / 2;
    if ((x2 - x1) * zoom > w - 2 * PAD) {
      const inputs = this.view.boxes.flatMap((b, i) => (b.kind === 'input' ? [this.layout.x[i]] : []));
      const at = inputs.length ? inputs.reduce((a, b) => a + b, 0) / inputs.length : this.layout.x[0];
      const half = (w / 2 - PAD) / zoom;
      cx = Math.min(Math.max(at, x1 + half), x2 - half); // no empty margin beside the graph
    }
    return { zoom, x: w / 2 - cx * zoom, y: PAD - y1 * zoom };
  }

  /** Centres a box, zoomed in enough to read it. */
  focus(box: number): void {
    const { w, h } = this.size();
    const zoom = Math.max(this.zoom(), ACTUAL_SIZE);
    this.setViewport(zoom, { x: w / 2 - this.layout.x[box] * zoom, y: h / 2 - this.layout.y[box] * zoom });
  }

  /** Brings a box into view with the least movement (the keyboard's selection): zoomed to 100 % first when labels do not read. */
  reveal(box: number): void {
    if (this.zoom() < ACTUAL_SIZE * 0.75) {
      this.focus(box);
      return;
    }
    const { w, h } = this.size();
    const zoom = this.zoom(),
      pan = this.pan();
    const b = this.view.boxes[box];
    const left = (this.layout.x[box] - b.width / 2) * zoom + pan.x,
      right = (this.layout.x[box] + b.width / 2) * zoom + pan.x;
    const top = (this.layout.y[box] - b.height / 2) * zoom + pan.y,
      bottom = (this.layout.y[box] + b.height / 2) * zoom + pan.y;
    const margin = Math.min(PAD * 2, w / 4, h / 4);
    const dx = left < margin ? margin - left : right > w - margin ? w - margin - right : 0;
    const dy = top < margin ? margin - top : bottom > h - margin ? h - margin - bottom : 0;
    if (dx || dy) this.setViewport(zoom, { x: pan.x + dx, y: pan.y + dy });
  }

  /** The box nearest the centre of the view (where the keyboard starts when nothing is selected), or -1. */
  centreBox(): number {
    const e = this.extent();
    const cx = (e.x1 + e.x2) / 2,
      cy = (e.y1 + e.y2) / 2;
    let best = -1,
      bestDistance = Infinity;
    for (const b of this.grid.query(e.x1, e.y1, e.x2, e.y2, Infinity) ?? []) {
      const d = Math.hypot(this.layout.x[b] - cx, this.layout.y[b] - cy);
      if (d < bestDistance) [best, bestDistance] = [b, d];
    }
    return best;
  }

  /** The current zoom (1: 100 %). */
  get currentZoom(): number {
    return this.zoom();
  }

  /** 100 %, around the centre of the view. */
  actualSize(): void {
    this.zoomTo(ACTUAL_SIZE);
  }

  /** One step of the zoom ladder in (1) or out (−1) around the centre of the view (zoomSteps.ts). */
  zoomStep(direction: 1 | -1): void {
    this.zoomTo(nextZoom(this.zoom(), direction, this.fitted().zoom));
  }

  zoomBy(factor: number): void {
    this.zoomTo(this.zoom() * factor);
  }

  private zoomTo(zoom: number): void {
    const { w, h } = this.size();
    const level = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
    if (this.cy) {
      this.cy.zoom({ level, renderedPosition: { x: w / 2, y: h / 2 } });
      return;
    }
    const pan = this.pan(),
      k = level / this.zoom();
    this.setViewport(level, { x: w / 2 - (w / 2 - pan.x) * k, y: h / 2 - (h / 2 - pan.y) * k });
  }

  panBy(dx: number, dy: number): void {
    const pan = this.pan();
    this.setViewport(this.zoom(), { x: pan.x + dx, y: pan.y + dy });
  }

  /** Where a box is on the page (client coordinates), for tests that click it. */
  clientPosition(box: number): { x: number; y: number } {
    const rect = this.host.getBoundingClientRect();
    const pan = this.pan(),
      zoom = this.zoom();
    return { x: rect.left + this.layout.x[box] * zoom + pan.x, y: rect.top + this.layout.y[box] * zoom + pan.y };
  }

  /** No window update or overview frame pending, and cytoscape has taken over: what is on screen matches the viewport. */
  get idle(): boolean {
    return this.handedOver && this.settleTimer === undefined && this.frame === 0;
  }

  /** Whether cytoscape draws this box now (the overview draws the rest). */
  isDetailed(box: number): boolean {
    return this.handedOver && this.detailed[box] === 1;
  }

  /** New visual state: flags per box (FLAG bits) and heat colours (null: family colours). */
  setVisualState(flags: Uint8Array, heat: (string | null)[] | null): void {
    const old = this.flags;
    const heatChanged = heat !== this.heat;
    this.flags = flags;
    this.heat = heat;
    this.cy?.batch(() => {
      this.cy!.nodes().forEach((node) => {
        const b = Number(node.data('box'));
        if (old[b] !== flags[b]) node.classes(classesOf(flags[b]));
        if (heatChanged) node.data('colour', this.colourOf(b));
      });
    });
    if (old === flags && !heatChanged) return;
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

  /** The zoom and the model-space point at the centre of the view. */
  viewCentre(): { x: number; y: number; zoom: number } {
    const e = this.extent();
    return { x: (e.x1 + e.x2) / 2, y: (e.y1 + e.y2) / 2, zoom: this.zoom() };
  }

  /** Puts model point (x, y) at the centre of the view at `zoom`. */
  centreOn(x: number, y: number, zoom: number): void {
    const { w, h } = this.size();
    const level = Math.min(4, Math.max(1e-3, zoom));
    this.setViewport(level, { x: w / 2 - x * level, y: h / 2 - y * level });
  }

  private viewportChanged() {
    this.events.onViewport?.();
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

  /** The boxes around the viewport when few enough are in view at a readable zoom, else none. */
  private windowBoxes(): Set<number> {
    const e = this.extent();
    const mx = e.w * WINDOW_MARGIN,
      my = e.h * WINDOW_MARGIN;
    const inView = this.zoom() >= MIN_DETAIL_ZOOM ? this.grid.query(e.x1, e.y1, e.x2, e.y2, DETAIL_LIMIT) : null;
    return inView
      ? (this.grid.query(e.x1 - mx, e.y1 - my, e.x2 + mx, e.y2 + my, DETAIL_LIMIT * 2.5) ?? inView)
      : new Set<number>();
  }

  /** Hands cytoscape the window's boxes (before cytoscape is there: the canvas paints them in detail). */
  syncWindow(redraw = true): void {
    if (this.destroyed) return;
    const wanted = this.windowBoxes();
    this.window = wanted;
    const cy = this.cy;
    if (!cy) {
      this.cacheView = null;
      this.redraw();
      return;
    }
    const view = this.view;
    cy.batch(() => {
      const gone = cy.nodes().filter((node) => !wanted.has(Number(node.data('box'))));
      gone.forEach((node) => {
        const b = Number(node.data('box'));
        this.detailed[b] = 0;
        for (const k of this.edgesOf[b]) this.edgeIn[k] = 0;
      });
      cy.remove(gone);
      const added: ElementDefinition[] = [];
      const fresh: number[] = [];
      for (const b of wanted) {
        if (this.detailed[b]) continue;
        this.detailed[b] = 1;
        fresh.push(b);
        const box = view.boxes[b];
        added.push({
          group: 'nodes',
          data: {
            id: `b${b}`,
            box: b,
            label: `${box.title}\n${box.subtitle}`,
            w: box.width,
            h: box.height,
            colour: this.colourOf(b),
          },
          position: { x: this.layout.x[b], y: this.layout.y[b] },
          classes: classesOf(this.flags[b]),
        });
      }
      for (const b of fresh) {
        for (const k of this.edgesOf[b]) {
          const edge = view.edges[k];
          if (this.edgeIn[k] || !this.detailed[edge.source] || !this.detailed[edge.target]) continue;
          this.edgeIn[k] = 1;
          added.push({
            group: 'edges',
            data: {
              id: `e${k}`,
              source: `b${edge.source}`,
              target: `b${edge.target}`,
              label: this.labels.text[k],
              lx: this.labels.dx[k],
              ly: this.labels.dy[k],
            },
          });
        }
      }
      cy.add(added);
    });
    this.detailedCount = wanted.size;
    if (redraw) this.redraw();
  }

  /** Whether the canvas paints box b in cytoscape's style now (cytoscape meant to hold it but not drawing yet). */
  private readonly paintedInDetail = (b: number) => !this.handedOver && this.window.has(b);

  /** The first picture, straight onto the visible canvas (no cache: its allocation alone costs tens of ms). */
  private paintFirstPicture() {
    const { w, h } = this.size();
    this.lastSize = { w, h };
    this.overview.width = w;
    this.overview.height = h;
    const ctx = this.overview.getContext('2d')!;
    const { zoom, x, y } = this.viewport;
    paintOverview(ctx, this.overviewScene(), zoom, x, y, -x / zoom, -y / zoom, (w - x) / zoom, (h - y) / zoom);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  /**
   * Draws every box and edge cytoscape does not draw into the cache canvas, which covers the viewport
   * and a margin around it (so a pan shows drawn content until the full redraw at rest).
   */
  private renderCache() {
    const { w, h } = this.size();
    this.lastSize = { w, h };
    const mw = Math.round(w * CACHE_MARGIN),
      mh = Math.round(h * CACHE_MARGIN);
    const canvas = this.cache;
    if (canvas.width !== w + 2 * mw || canvas.height !== h + 2 * mh) {
      canvas.width = w + 2 * mw;
      canvas.height = h + 2 * mh;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const zoom = this.zoom(),
      pan = this.pan();
    this.cacheView = { zoom, x: pan.x + mw, y: pan.y + mh };
    paintOverview(
      ctx,
      this.overviewScene(),
      zoom,
      pan.x + mw,
      pan.y + mh,
      -(pan.x + mw) / zoom,
      -(pan.y + mh) / zoom,
      (w + mw - pan.x) / zoom,
      (h + mh - pan.y) / zoom,
    );
  }

  /** What the overview paints now (overviewPainter.ts). */
  private overviewScene(): OverviewScene {
    return {
      view: this.view,
      layout: this.layout,
      flags: this.flags,
      labels: this.labels,
      drawnByCytoscape: (b) => this.isDetailed(b),
      paintedInDetail: this.paintedInDetail,
      colourOf: (b) => this.colourOf(b),
    };
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
    // The first picture was painted on this canvas under the model transform; what follows is in screen pixels.
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const view = this.cacheView;
    if (!view) return;
    const zoom = this.zoom(),
      pan = this.pan();
    const s = zoom / view.zoom;
    ctx.drawImage(this.cache, pan.x - view.x * s, pan.y - view.y * s, this.cache.width * s, this.cache.height * s);
  }

  /** The edge labels cytoscape draws now, as their rendered boxes (model units): for tests that check none overlap. */
  edgeLabelBoxes(): { text: string; x1: number; y1: number; x2: number; y2: number }[] {
    const out: { text: string; x1: number; y1: number; x2: number; y2: number }[] = [];
    this.cy?.edges().forEach((edge) => {
      const text = edge.data('label') as string;
      if (!text) return;
      const b = edge.boundingBox({
        includeNodes: false,
        includeEdges: false,
        includeLabels: true,
        includeMainLabels: true,
        includeSourceLabels: false,
        includeTargetLabels: false,
        includeOverlays: false,
      });
      out.push({ text, x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 });
    });
    return out;
  }

  /** How many boxes cytoscape holds now. */
  get detailedBoxes(): number {
    return this.detailedCount;
  }

  destroy(): void {
    this.destroyed = true;
    clearTimeout(this.settleTimer);
    clearTimeout(this.attachTimer);
    cancelAnimationFrame(this.frame);
    this.resizeObserver.disconnect();
    this.host.removeEventListener('pointerdown', this.noteModifiers, true);
    this.host.removeEventListener('click', this.clickBeforeCytoscape);
    this.cy?.destroy();
    this.host.replaceChildren();
  }
}
