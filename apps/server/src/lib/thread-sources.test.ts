import fs from "node:fs";
import path from "node:path";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { type ReaderOptions, readImport } from "../modules/imports/imports.reader.ts";
import type { WorkerData, WorkerMessage } from "../modules/imports/imports.worker.ts";
import { strippedSources, THREAD_ENTRY } from "./thread-sources.ts";

const WORKER = new URL("../modules/imports/imports.worker.ts", import.meta.url).href;
const FIT = path.resolve(
  import.meta.dirname,
  "../../../../packages/importers/test/fixtures/fit/MonitoringFile.fit",
);

/**
 * A thread started as the import job starts them, but with Node's own TypeScript stripping switched off:
 * any project file it loaded itself instead of from the stripped sources would fail to parse.
 */
async function startThread(data: WorkerData, transferList: MessagePort[] = []) {
  return new Worker(THREAD_ENTRY, {
    workerData: { ...data, sources: await strippedSources(), module: WORKER },
    transferList,
    execArgv: ["--no-experimental-strip-types"],
  });
}

function messages(worker: Worker, until: (m: WorkerMessage) => boolean): Promise<WorkerMessage[]> {
  const seen: WorkerMessage[] = [];
  return new Promise((resolve, reject) => {
    worker.on("message", (m: WorkerMessage) => {
      seen.push(m);
      if (m.type === "batch") worker.postMessage({ type: "ack" });
      if (until(m)) resolve(seen);
    });
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`thread exited (${code}) after ${JSON.stringify(seen)}`)));
  });
}

describe("threads loading the project's stripped sources", () => {
  it("has every file of the server and the packages, stripped in place (same lines, no types)", async () => {
    const sources = await strippedSources();
    const file = new URL(WORKER);
    const original = fs.readFileSync(file, "utf8");
    const stripped = sources[WORKER] ?? "";
    expect(original).toContain("import type");
    expect(stripped).not.toContain("import type");
    expect(stripped.split("\n")).toHaveLength(original.split("\n").length);
    expect(Object.keys(sources).some((u) => u.endsWith("/packages/importers/src/index.ts"))).toBe(true);
    expect(Object.keys(sources).some((u) => u.endsWith(".test.ts"))).toBe(false);
  });

  it("runs an import's reader without stripping TypeScript itself, with the same records as in-process", async () => {
    const read: ReaderOptions = {
      file: FIT,
      kind: "fit",
      fileName: "MonitoringFile.fit",
      timezoneOffsetMin: 0,
      recordedAtMs: 0,
      checkpoint: null,
    };
    let expected = 0;
    const reader = readImport(read);
    for (let next = await reader.next(); ; next = await reader.next()) {
      if (next.done) {
        expected = next.value.read;
        break;
      }
    }
    expect(expected).toBeGreaterThan(300);
    const worker = await startThread({ role: "reader", read });
    try {
      const seen = await messages(worker, (m) => m.type === "end" || m.type === "error");
      const end = seen.at(-1);
      expect(end?.type, JSON.stringify(end)).toBe("end");
      expect(end?.type === "end" && end.counts.read).toBe(expected);
    } finally {
      await worker.terminate();
    }
  });

  it("starts an import's writer (the database code, with the package-loading hook) the same way", async () => {
    const { port1, port2 } = new MessageChannel();
    const worker = await startThread(
      {
        role: "writer",
        write: {
          // Never reached: the writer connects on its first batch, and gets none.
          databaseUrl: "postgres://nobody@127.0.0.1:1/none",
          row: { id: "x", userId: "y", importedCount: 0, duplicateCount: 0 },
          timeZone: "UTC",
          server: { measurements: 0, bpReadings: 0, rejected: 0, ignored: 0, rejections: [] },
        },
        in: port2,
      },
      [port2],
    );
    try {
      const done = messages(worker, (m) => m.type === "end" || m.type === "error");
      // As the reader ends an import without records: the writer passes the end on once it is running.
      port1.postMessage({ type: "end", counts: { read: 0 } });
      const seen = await done;
      expect(seen.at(-1)).toEqual({ type: "end", counts: { read: 0 } });
    } finally {
      port1.close();
      await worker.terminate();
    }
  });
});
