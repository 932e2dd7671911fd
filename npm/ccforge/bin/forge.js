#!/usr/bin/env node
// ccforge's launcher: finds the forge binary of this platform's package (one of the
// optionalDependencies, which npm installs only where its os/cpu/libc match) and runs
// it with this process's arguments, standard streams and exit status. Anywhere
// else it says which platform it is and what to do instead.
"use strict";
const path = require("path");
const { spawnSync } = require("child_process");

const PACKAGES = {
  "linux x64 glibc": "ccforge-linux-x64",
  "linux arm64 glibc": "ccforge-linux-arm64",
};

function libc() {
  if (process.platform !== "linux") return "";
  const report = process.report && process.report.getReport ? process.report.getReport() : null;
  const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
  return header && header.glibcVersionRuntime ? "glibc" : "musl";
}

const platform = [process.platform, process.arch, libc()].filter(Boolean).join(" ");
const pkg = PACKAGES[platform];
let binary;
if (pkg) {
  try {
    binary = path.join(path.dirname(require.resolve(pkg + "/package.json")), "bin", "forge");
  } catch (_) {
    binary = undefined;
  }
}
if (!binary) {
  const supported = Object.keys(PACKAGES).join(", ");
  process.stderr.write(
    pkg
      ? `forge: the package ${pkg} for this platform (${platform}) is not installed: ` +
          "reinstall ccforge without --no-optional / --omit=optional.\n"
      : `forge: no forge binary for this platform (${platform}); ccforge ships ${supported}. ` +
          "forge needs Linux (it reads /proc and uses pidfd): elsewhere build it from source " +
          "with cargo install --locked --git https://github.com/ccforge/forge (see its docs/install.md).\n"
  );
  process.exit(1);
}
// The binary learns it was started through this launcher, so `forge init` names the
// bare `forge` on PATH (this script) in the settings it writes.
const env = Object.assign({}, process.env, { FORGE_LAUNCHER: __filename });
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", env });
if (run.error) {
  process.stderr.write(`forge: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
