#!/usr/bin/env node
// ccforge's launcher: finds the forge binary of this platform's package (one of the
// optionalDependencies, which npm installs only where its os/cpu/libc match) and runs
// it with this process's arguments, standard streams and exit status. Anywhere
// else it says which platform it is and what to do instead. (Where install scripts
// run, install.js puts the binary itself in this file's place, so no Node starts.)
"use strict";
const { spawnSync } = require("child_process");
const { PACKAGES, find } = require("../lib/platform.js");

const { platform, pkg, binary } = find();
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
