// A 1 GB (heavy tier) or 30 MB Apple Health import on PGlite, measured in a process of its own: see test/large-import.ts.
import { describeLargeImport } from "./test/large-import.ts";

describeLargeImport("pglite");
