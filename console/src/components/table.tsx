import type { ComponentChildren } from 'preact';

/**
 * A data table as every screen writes it: scrollable on narrow screens (where rows become cards,
 * styles.css), a caption for screen readers, the column headers, then the rows.
 */
export function DataTable(props: {
  caption: ComponentChildren;
  columns: readonly string[];
  /** A last column of row actions, its header read out but not shown. */
  actions?: boolean;
  /** A header cell before the named columns (e.g. a "select all" box). */
  first?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class="data-table">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.first}
            {props.columns.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
            {props.actions ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
