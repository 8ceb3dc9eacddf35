import type { Db } from "../../db/client.ts";
import { MEASUREMENT_ALGORITHM_VERSION, RECOMPUTE_REQUESTED } from "./measurements.compute.ts";
import { recomputeStale } from "./measurements.recompute.ts";
import { countWithVersion, markForRecompute } from "./measurements.repo.ts";

export const RECOMPUTE_USAGE = `measurements-recompute [--all] [--batch N]
                          recompute stored measurements from their raw RR with this version's
                          algorithms: those computed by another version or not yet (archive
                          imports); --all every measurement (after a fix that kept the version);
                          resumable: run it again after an interruption; a progress line every N
                          (default 500)`;

export type RecomputeOptions = { all: boolean; batch: number };

/** The command's arguments, or null when they are not its usage. */
export function parseRecomputeArgs(args: string[]): RecomputeOptions | null {
  let all = false;
  let batch = 500;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--all") all = true;
    else if (arg === "--batch") {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 100_000) return null;
      batch = n;
    } else return null;
  }
  return { all, batch };
}

/**
 * `npm run cli -- measurements-recompute [--all]`: recomputes, one transaction per measurement, every
 * stale row (another algorithm version, or no result yet after an archive import), printing progress
 * through `out`. `--all` first marks every up-to-date row stale (its numbers stay readable meanwhile,
 * with `algorithm_version` = `RECOMPUTE_REQUESTED`), unless rows marked by an earlier, interrupted
 * `--all` are still waiting: then it continues that run instead of starting over. Either way an
 * interrupted run loses nothing; the next run (or the server's hourly `measurements.recompute` job)
 * finishes what is still stale. Exit 1 when some series could not be computed (left as they were).
 */
export async function recomputeCommand(
  db: Db,
  parsed: RecomputeOptions,
  out: (line: string) => void,
): Promise<{ code: 0 | 1; message?: string }> {
  if (parsed.all) {
    const waiting = await countWithVersion(db, RECOMPUTE_REQUESTED);
    if (waiting > 0)
      out(`measurements: continuing the recompute of every measurement (${waiting} still waiting)`);
    else {
      const marked = await markForRecompute(db, MEASUREMENT_ALGORITHM_VERSION, RECOMPUTE_REQUESTED);
      out(`measurements: every measurement will be recomputed (${marked} marked)`);
    }
  }
  let total = 0;
  let failed = 0;
  let lastId: string | null = null;
  for (;;) {
    const progress = await recomputeStale(db, {
      afterId: lastId,
      maxRows: parsed.batch,
      batch: Math.min(50, parsed.batch),
    });
    total += progress.done;
    failed += progress.failed;
    lastId = progress.lastId;
    out(
      `measurements: ${total} recomputed to ${MEASUREMENT_ALGORITHM_VERSION}, ${progress.remaining} stale left`,
    );
    if (lastId === null) break;
  }
  if (failed > 0)
    return { code: 1, message: `measurements: ${failed} could not be computed (left as they were)` };
  return { code: 0 };
}
