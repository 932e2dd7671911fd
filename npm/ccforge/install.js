// ccforge's postinstall: where this platform's package is installed, copy its forge
// binary over bin/forge.js (npm's `forge` links to that file), so every hook and
// status-line tick runs forge directly instead of starting Node first (~65 ms).
// Anything that fails leaves the launcher in place, which works the same, slower;
// with --ignore-scripts this never runs.
"use strict";
const fs = require("fs");
const path = require("path");
const { find } = require("./lib/platform.js");

try {
  const { binary } = find();
  if (binary) {
    const target = path.join(__dirname, "bin", "forge.js");
    const tmp = target + ".tmp-" + process.pid;
    fs.copyFileSync(binary, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, target);
  }
} catch (_) {
  // Keep the launcher.
}
