// Downscaling by area averaging: each new pixel is the mean of the source pixels it covers, weighted
// by how much of each it covers (what photo tools call "area" or "box" resampling, the right filter
// for making a photo smaller). It works a destination row at a time, so it needs no memory beyond the
// result and one row, where a two-pass resizer keeps a float copy of the whole intermediate image.

export interface Rgba {
  data: Uint8Array;
  width: number;
  height: number;
}

/** The source cells [from, to) covers, with the share of each that falls inside. */
function spans(from: number, to: number, size: number): [index: number, weight: number][] {
  const cells: [number, number][] = [];
  for (let i = Math.floor(from); i < Math.min(size, Math.ceil(to)); i++) {
    const weight = Math.min(to, i + 1) - Math.max(from, i);
    if (weight > 0) cells.push([i, weight]);
  }
  return cells;
}

/** `source` (RGBA) made `width` × `height`, no larger than it was. */
export function areaResize(source: Rgba, width: number, height: number): Rgba {
  const xScale = source.width / width;
  const yScale = source.height / height;
  const columns = Array.from({ length: width }, (_, x) => spans(x * xScale, (x + 1) * xScale, source.width));
  const data = new Uint8Array(width * height * 4);
  const sums = new Float64Array(width * 4);
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    let area = 0;
    for (const [sy, wy] of spans(y * yScale, (y + 1) * yScale, source.height)) {
      area += wy;
      const row = sy * source.width * 4;
      for (let x = 0; x < width; x++) {
        for (const [sx, wx] of columns[x] ?? []) {
          const at = row + sx * 4;
          const weight = wx * wy;
          const to = x * 4;
          sums[to] = (sums[to] ?? 0) + (source.data[at] ?? 0) * weight;
          sums[to + 1] = (sums[to + 1] ?? 0) + (source.data[at + 1] ?? 0) * weight;
          sums[to + 2] = (sums[to + 2] ?? 0) + (source.data[at + 2] ?? 0) * weight;
          sums[to + 3] = (sums[to + 3] ?? 0) + (source.data[at + 3] ?? 0) * weight;
        }
      }
    }
    for (let x = 0; x < width; x++) {
      const covered = area * (columns[x]?.reduce((total, [, weight]) => total + weight, 0) ?? 1);
      for (let c = 0; c < 4; c++)
        data[(y * width + x) * 4 + c] = Math.round((sums[x * 4 + c] ?? 0) / covered);
    }
  }
  return { data, width, height };
}
