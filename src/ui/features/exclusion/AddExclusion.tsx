/**
 * Adding an exclusion without the graph: node ids typed in (comma- or space-separated; the ids the
 * graph and reports show) or an op type chosen from the model's op histogram. An id that names nothing
 * is refused here with the core's message, before it can fail a quantization.
 */
import { useState, type ReactNode } from 'react';
import { resolveExclusions } from '../../../core/exclude/index.ts';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import { nodeId } from '../../../core/onnx/model.ts';
import { useStudio } from '../../store/index.ts';

/** One way to add an exclusion: a form row of its label, its field and its button (Enter submits it). */
function AddRow({
  label,
  fieldId,
  onSubmit,
  children,
}: {
  label: string;
  fieldId: string;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="exclusion-add__row"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <label className="exclusion-add__label" htmlFor={fieldId}>
        {label}
      </label>
      {children}
    </form>
  );
}

export function AddExclusion({ index }: { index: GraphIndex | null }) {
  const ops = useStudio((s) => s.model.summary?.ops ?? []);
  const add = useStudio((s) => s.addExclusion);
  const [ids, setIds] = useState('');
  const [opType, setOpType] = useState('');
  const [error, setError] = useState<{ name: string; message: string } | null>(null);

  const addNodes = () => {
    const list = ids.split(/[\s,]+/).filter(Boolean);
    if (list.length === 0 || !index) return;
    try {
      resolveExclusions(index, { nodesToExclude: list });
    } catch (e) {
      setError({ name: (e as Error).name, message: (e as Error).message });
      return;
    }
    add({ kind: 'nodes', name: list.length === 1 ? list[0] : `${list.length} nodes`, nodes: list.map(nodeId) });
    setIds('');
    setError(null);
  };

  const addOpType = () => {
    if (!opType) return;
    add({ kind: 'opTypes', name: `All ${opType}`, opTypes: [opType] });
    setOpType('');
    setError(null);
  };

  return (
    <div className="exclusion-add">
      <AddRow label="Node ids" fieldId="exclusion-node-ids" onSubmit={addNodes}>
        <input
          id="exclusion-node-ids"
          className="input"
          type="text"
          value={ids}
          placeholder="e.g. Conv_12, /head/Sigmoid"
          onChange={(e) => setIds(e.target.value)}
          data-testid="add-node-input"
          autoComplete="off"
          spellCheck={false}
        />
        <button
          type="submit"
          className="button button--small"
          disabled={!ids.trim() || !index}
          data-testid="add-node-button"
        >
          Exclude nodes
        </button>
      </AddRow>
      <AddRow label="Op type" fieldId="exclusion-op-type" onSubmit={addOpType}>
        <select
          id="exclusion-op-type"
          className="select"
          value={opType}
          onChange={(e) => setOpType(e.target.value)}
          data-testid="add-optype-select"
        >
          <option value="">Choose an op type…</option>
          {ops.map((o) => (
            <option key={`${o.domain}:${o.opType}`} value={o.opType}>
              {o.opType} ({o.count})
            </option>
          ))}
        </select>
        <button type="submit" className="button button--small" disabled={!opType} data-testid="add-optype-button">
          Exclude op type
        </button>
      </AddRow>
      {error && (
        <p className="exclusion-add__error small" role="alert" data-testid="add-error" data-error-name={error.name}>
          <strong>{error.name}:</strong> {error.message}
        </p>
      )}
    </div>
  );
}
