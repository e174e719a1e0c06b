/**
 * The session's voice on the page: "restored your previous session" after a reload, a warning when the
 * browser refused to save (a full quota), and the "New session" button that forgets everything.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { pageSession, startPageSession } from '../../persist/pageSession.ts';
import { useStudio } from '../../store/index.ts';
import './session.css';

export function SessionBar() {
  useEffect(startPageSession, []);
  const status = useSyncExternalStore(pageSession.subscribeStatus, pageSession.getStatus);
  const hasWork = useStudio((s) => s.model.summary !== null || s.calibration.images.length > 0 || s.exclusions.entries.length > 0);
  return (
    <div className="session-bar" data-testid="session-bar" data-restoring={status.restoring ? 'true' : 'false'}>
      {(hasWork || status.restored) && (
        <div className="session-bar__actions">
          <button type="button" className="button button--small" data-testid="new-session"
            onClick={() => void pageSession.newSession()}
            title="Close the model and forget the images, settings and exclusions kept for the next visit">
            New session
          </button>
        </div>
      )}
      {status.restored && (
        <Callout kind="info" testId="session-restored" title="Welcome back"
          actions={<button type="button" className="button button--small" onClick={pageSession.dismissNote}>OK</button>}>
          <p>{status.restored}</p>
        </Callout>
      )}
      {status.error && (
        <Callout kind="warning" testId="session-error" title="Not saved for next time"
          actions={<button type="button" className="button button--small" onClick={pageSession.dismissNote}>Dismiss</button>}>
          <p>{status.error}</p>
        </Callout>
      )}
    </div>
  );
}
