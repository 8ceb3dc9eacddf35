import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const SERVER = "http://localhost:8080";
const PROXIED = ["/dashboard_api", "/api", "/media", "/oauth2", "/ifttt", "/healthz"];
/** Pages of this app that live under a proxied prefix (the IFTTT consent page under /oauth2/). */
const OWN_PAGES = ["/oauth2/authorize/ifttt"];
const servePage = (req: { url?: string }) =>
  OWN_PAGES.some((p) => (req.url ?? "").split("?")[0] === p) ? "/index.html" : undefined;

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: Object.fromEntries(
      PROXIED.map((prefix) => [prefix, { target: SERVER, changeOrigin: false, bypass: servePage }]),
    ),
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      // The contract's modules only declare zod schemas; the web app uses its types and the API paths, so a
      // contract module nobody imports from must not drag zod (~90 KB) into the bundle.
      treeshake: { moduleSideEffects: (id: string) => !id.includes("/packages/contract/") },
      output: {
        // zod probes `new Function` (to compile fast parsers) as soon as it builds an object schema, which
        // happens while its own chunk loads; the app's CSP (`script-src 'self'`) refuses it and every page
        // reported a violation (RELIABILITY H2). Its global settings are read from this object, so every
        // chunk sets `jitless` before anything of zod runs; parsing stays correct, without generated code.
        banner: "globalThis.__zod_globalConfig??={jitless:true};",
      },
    },
  },
});
