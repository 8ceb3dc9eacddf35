import { readFileSync } from "node:fs";
import path from "node:path";

const FIXTURES = path.resolve(import.meta.dirname, "../../../../packages/hrv/test/fixtures/rr");

/** An RR fixture of packages/hrv in milliseconds (real recordings; attribution in that folder's README). */
export function rrFixture(name: string): number[] {
  return readFileSync(path.join(FIXTURES, name), "utf8")
    .split("\n")
    .slice(1)
    .map((line) => Number(line.split(",")[0]))
    .filter((v) => Number.isFinite(v) && v > 0);
}

/** A short real recording (about 100 beats), the tests' usual measurement. */
export const SHORT_RR = rrFixture("welltory_4f2e5c4333_rr.csv");
