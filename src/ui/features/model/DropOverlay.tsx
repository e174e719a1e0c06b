/**
 * The full-window overlay shown while files are dragged over the page: it says that dropping anywhere
 * opens the model. It takes no pointer events, so the drag keeps reaching the page beneath.
 */
export function DropOverlay({ replacing }: { replacing: boolean }) {
  return (
    <div className="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
      <div className="drop-overlay__card">
        <div className="drop-overlay__title">Drop to open</div>
        <div className="drop-overlay__text">
          {replacing
            ? 'The dropped model replaces the open one.'
            : 'An .onnx model, with its external data files if it has any.'}
        </div>
      </div>
    </div>
  );
}
