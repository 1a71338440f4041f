import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Listeners } from "./listeners.ts";

describe("Listeners", () => {
  it("tells every listener added, in order, until it is removed", () => {
    const listeners = new Listeners<number>();
    const heard: string[] = [];
    const stopA = listeners.add((n) => heard.push(`a${n}`));
    listeners.add((n) => heard.push(`b${n}`));
    listeners.tell(1);
    stopA();
    listeners.tell(2);
    assert.deepEqual(heard, ["a1", "b1", "b2"]);
  });

  it("goes on past a listener that throws, handing its error to onFault", () => {
    const faults: unknown[] = [];
    const listeners = new Listeners<string>((error) => faults.push(error));
    const heard: string[] = [];
    const broken = new Error("a closed page stream");
    listeners.add(() => {
      throw broken;
    });
    listeners.add((event) => heard.push(event));
    assert.doesNotThrow(() => listeners.tell("saved"));
    assert.deepEqual(heard, ["saved"]);
    assert.deepEqual(faults, [broken]);
  });

  it("drops a listener's error when no onFault is given", () => {
    const listeners = new Listeners<string>();
    listeners.add(() => {
      throw new Error("ignored");
    });
    assert.doesNotThrow(() => listeners.tell("x"));
  });
});
