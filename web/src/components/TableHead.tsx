/** A list's header row: its columns' names, then, when its rows have buttons, a column named only for screen readers. */
export function TableHead({ columns, actions }: { columns: string[]; actions: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
