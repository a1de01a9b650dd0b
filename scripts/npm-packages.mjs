#!/usr/bin/env node
// npm-packages.mjs DIST: lspkit's npm packages from a GoReleaser dist
// directory (scripts/release-snapshot.sh runs it): one package per
// platform binary, @lspkit/<os>-<cpu> with npm's os and cpu fields and
// the binary in bin/, and lspkit (npm/lspkit: the resolver its bin runs)
// with each of them as an optional dependency at the release's version.
// The tarballs are packed into DIST/npm.
import { execFileSync } from "node:child_process";
import { copyFileSync, chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const dist = resolve(process.argv[2] ?? "dist");
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const nodeOS = { linux: "linux", darwin: "darwin", windows: "win32", freebsd: "freebsd" };
const nodeCPU = { amd64: "x64", arm64: "arm64" };

const { version } = JSON.parse(readFileSync(join(dist, "metadata.json"), "utf8"));
const artifacts = JSON.parse(readFileSync(join(dist, "artifacts.json"), "utf8"));
const main = JSON.parse(readFileSync(join(repo, "npm", "lspkit", "package.json"), "utf8"));
const out = join(dist, "npm");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

function pack(dir) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop();
  console.log(join("npm", name));
}

const optional = {};
for (const a of artifacts) {
  if (a.type !== "Binary" || a.extra?.ID !== "lspkit") continue;
  const os = nodeOS[a.goos], cpu = nodeCPU[a.goarch];
  if (!os || !cpu) throw new Error(`no npm platform for ${a.goos}/${a.goarch}`);
  const name = `@lspkit/${os}-${cpu}`;
  const dir = join(out, "build", `${os}-${cpu}`);
  const exe = os === "win32" ? "lspkit.exe" : "lspkit";
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(resolve(repo, a.path), join(dir, "bin", exe));
  chmodSync(join(dir, "bin", exe), 0o755);
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name, version,
    description: `The lspkit binary for ${os} on ${cpu} (installed by the lspkit package)`,
    homepage: main.homepage, repository: main.repository,
    os: [os], cpu: [cpu],
    files: [`bin/${exe}`],
    preferUnplugged: true,
  }, null, 2) + "\n");
  pack(dir);
  optional[name] = version;
}
if (Object.keys(optional).length === 0) throw new Error(`no lspkit binaries in ${join(dist, "artifacts.json")}`);

const dir = join(out, "build", "lspkit");
mkdirSync(join(dir, "bin"), { recursive: true });
copyFileSync(join(repo, "npm", "lspkit", "bin", "lspkit.js"), join(dir, "bin", "lspkit.js"));
chmodSync(join(dir, "bin", "lspkit.js"), 0o755);
copyFileSync(join(repo, "README.md"), join(dir, "README.md"));
writeFileSync(join(dir, "package.json"), JSON.stringify({ ...main, version, optionalDependencies: optional }, null, 2) + "\n");
pack(dir);
rmSync(join(out, "build"), { recursive: true, force: true });
