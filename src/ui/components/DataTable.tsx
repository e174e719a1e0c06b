/**
 * A table of figures or names in the house's tensor-table look, in a box that scrolls sideways on a narrow page: the
 * column groups where given, the column heads (one row), then the rows. NumberHead heads a right-aligned number column.
 */
import type { ReactNode } from 'react';

export interface DataTableProps {
  /** Classes beside tensor-table: the screen's own look. */
  className?: string;
  testId?: string;
  /** A colgroup's cols, where columns have widths. */
  columns?: ReactNode;
  /** The column heads (th), one row. */
  head: ReactNode;
  /** The rows (tr). */
  children: ReactNode;
}

export function DataTable({ className, testId, columns, head, children }: DataTableProps) {
  return (
    <div className="table-scroll">
      <table className={className ? `tensor-table ${className}` : 'tensor-table'} data-testid={testId}>
        {columns && <colgroup>{columns}</colgroup>}
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The head of a column of numbers (right-aligned, as its cells). */
export function NumberHead({ children }: { children: ReactNode }) {
  return (
    <th scope="col" className="eval-num">
      {children}
    </th>
  );
}
