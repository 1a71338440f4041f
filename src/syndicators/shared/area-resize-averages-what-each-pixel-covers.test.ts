import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { areaResize } from "./area-resize.ts";

/** An RGBA image whose pixel (x, y) has the grey value `grey(x, y)`. */
function image(width: number, height: number, grey: (x: number, y: number) => number) {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set([grey(x, y), grey(x, y), grey(x, y), 255], (y * width + x) * 4);
  return { data, width, height };
}

const greys = (result: { data: Uint8Array }) => [...result.data].filter((_, i) => i % 4 === 0);

describe("area resize: each new pixel is the mean of what it covers", () => {
  it("halving averages each 2 × 2 block", () => {
    const source = image(4, 2, (x) => [0, 100, 200, 40][x] ?? 0);
    const result = areaResize(source, 2, 1);
    assert.deepEqual(greys(result), [50, 120]);
  });

  it("a ratio that is not whole weighs the pixels cut in two by their share", () => {
    // 3 pixels into 2: the middle one counts half to each side.
    const result = areaResize(
      image(3, 1, (x) => [0, 90, 180][x] ?? 0),
      2,
      1,
    );
    assert.deepEqual(greys(result), [30, 150]);
  });

  it("keeps a flat colour and full opacity exactly, at any size", () => {
    const result = areaResize(
      image(401, 299, () => 77),
      123,
      91,
    );
    assert.equal(result.data.length, 123 * 91 * 4);
    assert.ok(greys(result).every((grey) => grey === 77));
    assert.ok([...result.data].filter((_, i) => i % 4 === 3).every((alpha) => alpha === 255));
  });
});
