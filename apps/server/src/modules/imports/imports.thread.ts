// The entry of an import's worker threads: packages load faster on this thread (lib/module-resolution.ts),
// then the worker's code is loaded (a static import would be resolved before the hook is registered).
import { speedUpPackageLoading } from "../../lib/module-resolution.ts";

speedUpPackageLoading();
await import("./imports.worker.ts");
