#!/usr/bin/env node
/**
 * Page weight of the built client (dist/): every JS and CSS file's size, raw and gzipped
 * (level 9), split into what the first page load fetches (index.html's script, styles and
 * preloads) and what loads on demand (boards, how-to text). Fails when the first load's
 * gzipped JS + CSS exceeds the budget (LUMIN_WEIGHT_BUDGET bytes, default 80 KiB), so a
 * heavy dependency cannot slip in unnoticed. Usage: `npm run weight` after `npm run build`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";

const dist = new URL("../dist/", import.meta.url).pathname;
const budget = Number(process.env.LUMIN_WEIGHT_BUDGET ?? 80 * 1024);

function files(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

let html;
try {
  html = readFileSync(join(dist, "index.html"), "utf8");
} catch {
  console.error("dist/index.html is missing: run `npm run build` first.");
  process.exit(1);
}
const initial = new Set([...html.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]));
const rows = files(dist)
  .filter((path) => /\.(js|css)$/.test(path))
  .map((path) => {
    const data = readFileSync(path);
    const name = relative(dist, path);
    return { name, kind: name.endsWith(".css") ? "css" : "js", raw: data.length, gzip: gzipSync(data, { level: 9 }).length, first: initial.has(name) };
  })
  .sort((a, b) => Number(b.first) - Number(a.first) || b.gzip - a.gzip);

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const sum = (list, key) => list.reduce((total, row) => total + row[key], 0);
console.log("file".padEnd(44), "load".padEnd(9), "raw".padStart(10), "gzip".padStart(10));
for (const row of rows) console.log(row.name.padEnd(44), (row.first ? "first" : "on demand").padEnd(9), kb(row.raw).padStart(10), kb(row.gzip).padStart(10));
const first = rows.filter((row) => row.first);
const lazy = rows.filter((row) => !row.first);
for (const [label, list] of [["first load", first], ["on demand", lazy], ["everything", rows]]) {
  const js = list.filter((row) => row.kind === "js");
  const css = list.filter((row) => row.kind === "css");
  console.log(`${label}: JS ${kb(sum(js, "gzip"))} + CSS ${kb(sum(css, "gzip"))} = ${kb(sum(list, "gzip"))} gzipped (${kb(sum(list, "raw"))} raw)`);
}
const firstGzip = sum(first, "gzip");
if (firstGzip > budget) {
  console.error(`The first load is ${kb(firstGzip)} gzipped, over the ${kb(budget)} budget.`);
  process.exit(1);
}
