/**
 * A table of the portal: a caption for screen readers, one header row of column names, then
 * the rows the tab renders (each with its own `<th scope="row">`).
 */
import type { ComponentChildren } from 'preact'

export function DataTable({
  caption,
  columns,
  children,
}: {
  caption: string
  columns: readonly string[]
  children: ComponentChildren
}) {
  return (
    <table>
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  )
}
