/**
 * Search by node name or id, op type or tensor name, with jump-to-result: Enter goes to the next
 * match (Shift+Enter the previous), a click on a listed result goes to it. Matches are outlined on the
 * graph. "/" or Ctrl+F focuses the field (GraphScreen's keys); Esc in it clears it.
 */
import { useMemo, useRef, useState, type RefObject } from 'react';
import { useStudio } from '../../store/index.ts';
import { searchGraph, type GraphView } from './viewModel.ts';

interface Props {
  view: GraphView;
  inputRef: RefObject<HTMLInputElement | null>;
  onMatches(matches: number[]): void;
}

export function GraphSearch({ view, inputRef, onMatches }: Props) {
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState(-1);
  const [open, setOpen] = useState(false);
  // The list closes a moment after the field loses focus (so a click on a result lands first); focus coming back
  // before then must not be closed by that earlier blur.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const select = useStudio((s) => s.selectGraphNode);
  const matches = useMemo(() => searchGraph(view, query), [view, query]);

  const change = (text: string) => {
    setQuery(text);
    setCursor(-1);
    setOpen(true);
    onMatches(searchGraph(view, text));
  };
  const jump = (k: number) => {
    if (matches.length === 0) return;
    const next = ((k % matches.length) + matches.length) % matches.length;
    setCursor(next);
    select(view.boxes[matches[next]].id);
  };

  return (
    <div className="graph-search" role="search">
      <input
        ref={inputRef}
        type="search"
        className="graph-search__input"
        placeholder="Search nodes, op types, tensors  ( / )"
        aria-label="Search the graph by node name, op type or tensor name"
        value={query}
        onChange={(e) => change(e.target.value)}
        onFocus={() => {
          clearTimeout(closing.current);
          setOpen(true);
        }}
        onBlur={() => {
          clearTimeout(closing.current);
          closing.current = setTimeout(() => setOpen(false), 150);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            jump(cursor + (e.shiftKey ? -1 : 1));
            setOpen(false);
          } else if (e.key === 'Escape') {
            e.stopPropagation();
            change('');
            e.currentTarget.blur();
          }
        }}
        data-testid="graph-search"
      />
      {query.trim() && (
        <span className="graph-search__count muted small" data-testid="graph-search-count">
          {matches.length === 0
            ? 'no match'
            : cursor >= 0
              ? `${cursor + 1} of ${matches.length}`
              : `${matches.length} match${matches.length === 1 ? '' : 'es'}`}
        </span>
      )}
      {open && query.trim() && matches.length > 0 && (
        <ul className="graph-search__results" role="listbox" data-testid="graph-search-results">
          {matches.slice(0, 8).map((b, k) => {
            const box = view.boxes[b];
            return (
              <li key={b} role="option" aria-selected={k === cursor}>
                <button
                  type="button"
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => {
                    jump(k);
                    setOpen(false);
                  }}
                >
                  <span className="graph-search__op">{box.kind === 'node' ? box.title : box.kind}</span>{' '}
                  {box.kind === 'node' ? box.id : box.title}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
