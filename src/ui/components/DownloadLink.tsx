/**
 * A file the page made, as a link that downloads it under its name: "Download <name>", a primary button by default.
 */
export interface DownloadLinkProps {
  /** The file's object URL. */
  href: string;
  fileName: string;
  testId: string;
  className?: string;
  title?: string;
}

export function DownloadLink({
  href,
  fileName,
  testId,
  className = 'button button--primary',
  title,
}: DownloadLinkProps) {
  return (
    <a className={className} href={href} download={fileName} data-testid={testId} title={title}>
      Download {fileName}
    </a>
  );
}
