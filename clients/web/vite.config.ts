/// <reference types="vitest/config" />
import { defineConfig } from "vite";

/** Vite builds the page into dist/ (which `lumin serve` serves from a checkout; setup.py packages
 *  a build into the wheel and the sdist as lumin/web);
 *  Vitest runs the unit tests in tests/unit (the e2e tests are Playwright's, tests/e2e). */
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev` proxies the websocket and the admin API to a `lumin serve` on the default port.
    proxy: { "/ws": { target: "ws://127.0.0.1:8700", ws: true }, "/api": { target: "http://127.0.0.1:8700" } },
  },
  test: {
    include: ["tests/unit/**/*.test.ts", "src/**/*.test.ts"],
    environment: "node",
  },
});
