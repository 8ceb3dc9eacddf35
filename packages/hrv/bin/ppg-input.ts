// Reads a PPG text file for `tonus-hrv ppg`: one sample per line (the rate comes from --fs), or a
// delimited table with a time column (`t`, `time`, `timestamp`, optionally `_ms`/`_s` or `(ms)`/`(s)`)
// and a value column (the first other column). Times without a unit are seconds when their median
// step is below 1, otherwise milliseconds. A non-numeric first line is a header.

export type PpgInput = { values: number[]; timesMs: number[] } | { error: string };

const TIME_HEADER = /^(t|time|timestamp|ts)\s*(?:_?(ms|s)|\((ms|s)\))?$/i;

function cells(line: string): string[] {
  const trimmed = line.trim();
  const delimiter = trimmed.includes(",")
    ? ","
    : trimmed.includes(";")
      ? ";"
      : trimmed.includes("\t")
        ? "\t"
        : " ";
  return trimmed.split(delimiter === " " ? /\s+/ : delimiter).map((c) => c.trim());
}

export function readPpgText(text: string, fsHz: number | undefined): PpgInput {
  const lines = text.split(/\r?\n/);
  let header: string[] | undefined;
  const rows: { cells: string[]; line: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    const c = cells(line);
    if (!header && rows.length === 0 && c.some((x) => x !== "" && Number.isNaN(Number(x)))) {
      header = c;
      continue;
    }
    rows.push({ cells: c, line: i + 1 });
  }
  if (rows.length === 0) return { error: "no samples" };
  const timeCol = header?.findIndex((h) => TIME_HEADER.test(h)) ?? -1;
  const valueCol = timeCol === 0 ? 1 : 0;
  const values: number[] = [];
  const times: number[] = [];
  for (const row of rows) {
    const v = Number(row.cells[valueCol]);
    const t = timeCol >= 0 ? Number(row.cells[timeCol]) : Number.NaN;
    if (!Number.isFinite(v) || (timeCol >= 0 && !Number.isFinite(t))) {
      return { error: `line ${row.line}: not a number: ${JSON.stringify(row.cells.join(","))}` };
    }
    values.push(v);
    times.push(t);
  }
  if (timeCol < 0) {
    if (fsHz === undefined) return { error: "no time column: give the sample rate with --fs HZ" };
    return { values, timesMs: values.map((_, i) => (i * 1000) / fsHz) };
  }
  const unit = TIME_HEADER.exec(header?.[timeCol] ?? "");
  const named = unit?.[2] ?? unit?.[3];
  const steps = times.slice(1).map((t, i) => t - (times[i] as number));
  steps.sort((a, b) => a - b);
  const seconds = named ? named.toLowerCase() === "s" : (steps[steps.length >> 1] ?? 1) < 1;
  return { values, timesMs: seconds ? times.map((t) => t * 1000) : times };
}
