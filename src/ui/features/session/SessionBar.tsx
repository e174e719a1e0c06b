/**
 * The session's voice on the page: "welcome back" after a reload (what came back, with the model's name,
 * and what could not be kept; closed with OK or ×), a warning when the browser refused to save (a full
 * quota), and the "New session" button, which asks before it forgets anything.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { plural } from '../../components/format.ts';
import { pageSession, startPageSession } from '../../persist/pageSession.ts';
import { useStudio } from '../../store/index.ts';
import './session.css';

/** What "New session" would forget, in words. */
function useWhatGoes(): string {
  return useStudio((s) => {
    const parts = [
      s.model.fileName ? `closes ${s.model.fileName}` : '',
      s.calibration.images.length + s.calibration.npy.length > 0
        ? `forgets ${plural(s.calibration.images.length + s.calibration.npy.length, 'calibration sample')}`
        : '',
      s.evaluation.images.length + s.evaluation.npy.length > 0
        ? plural(s.evaluation.images.length + s.evaluation.npy.length, 'evaluation sample')
        : '',
      s.run.result ? 'the quantized model' : '',
      s.evaluation.result ? 'its evaluation' : '',
      s.exclusions.entries.length > 0 ? plural(s.exclusions.entries.length, 'exclusion') : '',
    ].filter(Boolean);
    return parts.length ? parts.join(', ') : 'forgets the settings';
  });
}

export function SessionBar() {
  useEffect(startPageSession, []);
  const status = useSyncExternalStore(pageSession.subscribeStatus, pageSession.getStatus);
  const hasWork = useStudio(
    (s) =>
      s.model.summary !== null ||
      s.calibration.images.length > 0 ||
      s.exclusions.entries.length > 0 ||
      s.evaluation.images.length > 0 ||
      s.evaluation.npy.length > 0,
  );
  const whatGoes = useWhatGoes();
  const [asking, setAsking] = useState(false);
  const welcome = status.restored || status.notKept;
  return (
    <div className="session-bar" data-testid="session-bar" data-restoring={status.restoring ? 'true' : 'false'}>
      {(hasWork || welcome) && !asking && (
        <div className="session-bar__actions">
          <button
            type="button"
            className="button button--small"
            data-testid="new-session"
            onClick={() => setAsking(true)}
            title="Close the model and forget the images, results, settings and exclusions kept for the next visit"
          >
            New session
          </button>
        </div>
      )}
      {asking && (
        <Callout
          kind="warning"
          testId="new-session-confirm"
          title="Start a new session?"
          actions={
            <>
              <button
                type="button"
                className="button button--small button--danger"
                data-testid="new-session-confirm-button"
                onClick={() => {
                  setAsking(false);
                  void pageSession.newSession();
                }}
              >
                Forget everything
              </button>
              <button
                type="button"
                className="button button--small"
                data-testid="new-session-cancel"
                onClick={() => setAsking(false)}
                autoFocus
              >
                Cancel
              </button>
            </>
          }
        >
          <p>This {whatGoes}, on this page and for the next visit. It cannot be undone.</p>
        </Callout>
      )}
      {welcome && (
        <Callout
          kind={status.notKept ? 'warning' : 'info'}
          testId="session-restored"
          title="Welcome back"
          actions={
            <>
              <button type="button" className="button button--small" onClick={pageSession.dismissNote}>
                OK
              </button>
              <button
                type="button"
                className="session-bar__close"
                aria-label="Close"
                data-testid="session-restored-close"
                onClick={pageSession.dismissNote}
              >
                ×
              </button>
            </>
          }
        >
          {status.restored && <p data-testid="session-restored-what">{status.restored}</p>}
          {status.notKept && <p data-testid="session-not-kept">{status.notKept}</p>}
        </Callout>
      )}
      {status.error && (
        <Callout
          kind="warning"
          testId="session-error"
          title="Not saved for next time"
          actions={
            <button type="button" className="button button--small" onClick={pageSession.dismissNote}>
              Dismiss
            </button>
          }
        >
          <p>{status.error}</p>
        </Callout>
      )}
    </div>
  );
}
