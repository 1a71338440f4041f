// Summaries of timing samples. Percentiles use the nearest-rank method, so p99 of 100 samples is the
// 99th smallest: a figure a reader can check by sorting the samples by hand.

export interface Distribution {
  count: number;
  min: number;
  median: number;
  p99: number;
  max: number;
  mean: number;
}

/** The sample at nearest rank `percent` (0 < percent ≤ 100) of an ascending list. */
function rank(sorted: readonly number[], percent: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function distribution(samples: readonly number[]): Distribution {
  if (samples.length === 0) throw new RangeError("distribution needs at least one sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: rank(sorted, 50),
    p99: rank(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sum / sorted.length,
  };
}

/** Milliseconds with enough digits to compare sub-millisecond figures. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (value >= 100) return `${Math.round(value).toLocaleString("en-US")} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(3)} ms`;
}

export function seconds(valueMs: number): string {
  return `${(valueMs / 1000).toFixed(2)} s`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** 1000 → "1,000". */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}

export const sleep = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds));
