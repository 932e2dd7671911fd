// Which of ccforge's platform packages this machine needs, and where its forge
// binary is. Shared by the launcher (bin/forge.js) and the install step (install.js).
"use strict";
const path = require("path");

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

/** { platform, pkg, binary }: `pkg` is undefined where ccforge ships no binary,
 * `binary` where that package is not installed. */
function find() {
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
  return { platform, pkg, binary };
}

module.exports = { PACKAGES, find };
