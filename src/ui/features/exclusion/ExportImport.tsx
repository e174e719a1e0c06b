/**
 * Carrying the choice elsewhere: download the config file (`qstudio quantize --config` takes it as is),
 * show the AMD Quark or ONNX Runtime script in a code box to copy or download, and import a config file
 * back (settings and picks). A bad file shows its named error and changes nothing.
 */
import { useRef, useState } from 'react';
import { JsonFileInput } from '../../components/JsonFileInput.tsx';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import { Callout } from '../../components/Callout.tsx';
import { downloadText } from '../../components/useObjectUrl.ts';
import {
  downloadConfigFile,
  importConfigFile,
  snippetFileName,
  snippetText,
  type SnippetKind,
} from './exportActions.ts';

const TITLES: Record<SnippetKind, string> = { quark: 'AMD Quark script', ort: 'ONNX Runtime quantize_static script' };
/** The script buttons, in their order: what each shows and its label. */
const SNIPPET_BUTTONS: { kind: SnippetKind; label: string }[] = [
  { kind: 'quark', label: 'Quark script' },
  { kind: 'ort', label: 'ONNX Runtime script' },
];

type Problem = { name: string; message: string };
const problemOf = (e: unknown): Problem => ({
  name: (e as Error)?.name || 'Error',
  message: (e as Error)?.message ?? String(e),
});

export function ExportImport({ index }: { index: GraphIndex | null }) {
  const [snippet, setSnippet] = useState<{ kind: SnippetKind; text: string } | null>(null);
  const [problem, setProblem] = useState<(Problem & { during: 'export' | 'import' }) | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);

  const showSnippet = (kind: SnippetKind) => {
    if (!index) return;
    setCopied(null);
    try {
      setSnippet({ kind, text: snippetText(kind, index) });
      setProblem(null);
    } catch (e) {
      setSnippet(null);
      setProblem({ ...problemOf(e), during: 'export' });
    }
  };

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied.');
    } catch {
      setCopied('The browser refused the clipboard: select the text and copy it.');
    }
  };

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      const outcome = await importConfigFile(file);
      setProblem(null);
      setSnippet(null);
      setNote(
        `Imported ${file.name}: ${outcome.picks} exclusion${outcome.picks === 1 ? '' : 's'} restored.${outcome.settingsNote ? ` ${outcome.settingsNote}` : ''}`,
      );
    } catch (e) {
      setNote(null);
      setProblem({ ...problemOf(e), during: 'import' });
    }
  };

  return (
    <div className="exclusion-export">
      <div className="step__actions">
        <button type="button" className="button button--small" onClick={downloadConfigFile} data-testid="export-config">
          Download config JSON
        </button>
        {SNIPPET_BUTTONS.map(({ kind, label }) => (
          <button
            key={kind}
            type="button"
            className="button button--small"
            disabled={!index}
            onClick={() => showSnippet(kind)}
            data-testid={`export-${kind}`}
          >
            {label}
          </button>
        ))}
        <button
          type="button"
          className="button button--small"
          onClick={() => picker.current?.click()}
          data-testid="import-config-button"
        >
          Import config JSON…
        </button>
        <JsonFileInput inputRef={picker} testId="import-config-input" onFile={(file) => void importFile(file)} />
      </div>
      {problem && (
        <Callout
          kind="error"
          testId={problem.during === 'import' ? 'import-error' : 'export-error'}
          data={{ 'data-error-name': problem.name }}
          title={problem.during === 'import' ? 'This file cannot be imported' : 'The script cannot be written'}
          actions={
            <button type="button" className="button button--small" onClick={() => setProblem(null)}>
              Dismiss
            </button>
          }
        >
          <p>
            <strong>{problem.name}:</strong> {problem.message}
          </p>
          <p className="callout__kept">
            {problem.during === 'import'
              ? 'Nothing was changed: your settings and exclusions are as they were.'
              : problem.name === 'ExclusionError'
                ? 'Fix or remove the exclusion named above.'
                : 'Nothing was written.'}
          </p>
        </Callout>
      )}
      {note && (
        <p className="muted small" role="status" data-testid="import-note">
          {note}
        </p>
      )}
      {snippet && (
        <section
          className="snippet"
          role="region"
          aria-label={TITLES[snippet.kind]}
          data-testid="snippet-dialog"
          data-snippet-kind={snippet.kind}
        >
          <header className="snippet__header">
            <strong>{TITLES[snippet.kind]}</strong>
            <span className="muted small">{snippetFileName(snippet.kind)}</span>
            <span className="snippet__actions">
              <button
                type="button"
                className="button button--small"
                onClick={() => void copy(snippet.text)}
                data-testid="snippet-copy"
              >
                Copy
              </button>
              <button
                type="button"
                className="button button--small"
                data-testid="snippet-download"
                onClick={() => downloadText(snippet.text, snippetFileName(snippet.kind), 'text/x-python')}
              >
                Download .py
              </button>
              <button
                type="button"
                className="button button--small"
                onClick={() => setSnippet(null)}
                aria-label="Close the script"
              >
                Close
              </button>
            </span>
          </header>
          {copied && (
            <p className="muted small" role="status">
              {copied}
            </p>
          )}
          <pre className="snippet__code" tabIndex={0} data-testid="snippet-code">
            <code>{snippet.text}</code>
          </pre>
        </section>
      )}
    </div>
  );
}
