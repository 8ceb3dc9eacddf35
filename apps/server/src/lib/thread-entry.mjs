// The entry of a worker thread started with `thread-sources.ts`: plain JavaScript, so Node does not
// instantiate its WebAssembly TypeScript stripper here. The project's files come already stripped in
// `workerData.sources`; anything else (installed packages) loads as usual. Then `workerData.module`
// runs, with the rest of `workerData` as its own.
import { registerHooks } from "node:module";
import { workerData } from "node:worker_threads";

const sources = workerData.sources;

registerHooks({
  load(url, context, nextLoad) {
    const source = sources[url];
    if (source === undefined) return nextLoad(url, context);
    return { format: "module", source, shortCircuit: true };
  },
});

await import(workerData.module);
