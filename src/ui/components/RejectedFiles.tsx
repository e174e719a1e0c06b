/**
 * The files a drop or a picker did not add, each with its reason, in one warning ("2 files not added"). Shown only
 * when there is one.
 */
import { Callout } from './Callout.tsx';
import { plural } from './format.ts';

export interface RejectedFilesProps {
  rejected: readonly { file: string; reason: string }[];
  testId: string;
}

export function RejectedFiles({ rejected, testId }: RejectedFilesProps) {
  if (rejected.length === 0) return null;
  return (
    <Callout kind="warning" testId={testId} title={`${plural(rejected.length, 'file')} not added`}>
      <ul className="plain-list rejected-list">
        {rejected.map((r) => (
          <li key={r.file} data-testid="rejected-file">
            <span className="file-name">{r.file}</span>: {r.reason}
          </li>
        ))}
      </ul>
    </Callout>
  );
}
