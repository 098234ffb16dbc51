// Owns printing rows for people (aligned columns) or machines (JSON), the two output forms of every CLI listing.

export const formatTable = (rows: Record<string, string>[], columns: string[]): string => {
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((column) => column.toUpperCase())),
    ...rows.map((row) => line(columns.map((c) => row[c] ?? ''))),
  ].join('\n');
};
