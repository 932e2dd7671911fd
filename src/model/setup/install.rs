//! How forge is installed, said in one place: the commands the teammate hint names
//! (the SessionStart fallback of the settings entries `forge init` writes and of the
//! plugin's `hooks/hooks.json`), the ones `forge init` and `forge doctor` suggest,
//! and the small POSIX `sh` gate that says the hint at most once a day per machine
//! and never once the teammate turned it off. Pure. docs/install.md documents them;
//! scripts/release.sh builds what they install.

/// The repository's address. An assumption to confirm before the first release:
/// the project has no public URL yet (`Cargo.toml`'s `repository` and the npm
/// packages' `repository` say the same).
pub(crate) const REPOSITORY: &str = "https://github.com/ccforge/forge";

/// The npm package of the launcher (npm/ccforge; its platform packages are
/// `ccforge-linux-x64` and `ccforge-linux-arm64`).
pub(crate) const NPM_PACKAGE: &str = "ccforge";

/// The one-step install for someone with Node.js (Claude Code users have it).
pub(crate) fn npm_command() -> String {
    format!("npm install -g {NPM_PACKAGE}")
}

/// The install from source, for the platforms without a prebuilt binary.
pub(crate) fn cargo_command() -> String {
    format!("cargo install --locked --git {REPOSITORY}")
}

/// Both, as the hint and the warnings say them.
pub(crate) fn commands() -> String {
    format!("{} (or {})", npm_command(), cargo_command())
}

/// The variable that silences the teammate hint for good, and its value.
pub(crate) const HINT_VAR: &str = "FORGE_HINT";
/// The value of [`HINT_VAR`] that turns the hint off.
pub(crate) const HINT_OFF: &str = "off";

/// The stamp file holding the day the hint was last said, in the teammate's own
/// cache folder: `$XDG_CACHE_HOME` when it is absolute, else `~/.cache` (a relative
/// one would put the stamp in the project, which the hook runs in). Shell words:
/// [`once_a_day`] sets `s` to the file.
const HINT_STAMP: &str = "c=${XDG_CACHE_HOME:-$HOME/.cache}; case $c in /*) ;; *) c=$HOME/.cache ;; esac; s=$c/forge/hint-day;";

/// How the person stops the hint, said in the hint itself.
pub(crate) fn hint_off_how() -> String {
    format!(
        "Said at most once a day; to stop it for good set {HINT_VAR}={HINT_OFF} in your environment or in the env of ~/.claude/settings.json."
    )
}

/// The shell that runs `say` (a command that prints the hint) only when the hint is
/// not off and was not said today, writing today's date into the stamp first (a
/// stamp that cannot be written does not stop the hint). It always exits 0: `if`
/// without a branch taken is a success. POSIX `sh`: built-ins (`read`, `[`, `echo`)
/// and `date` and `mkdir` found by `command -p`, the system's own search, never
/// `PATH` — the hook runs in the project folder, so a relative `PATH` entry would run
/// a `date` the repository ships (as issue 31 found for forge itself). Run only
/// where forge is missing.
pub(crate) fn once_a_day(say: &str) -> String {
    format!(
        "{HINT_STAMP} t=$(command -p date +%Y-%m-%d); l=; {{ read -r l <\"$s\"; }} 2>/dev/null; \
         if [ \"${{{HINT_VAR}-}}\" != {HINT_OFF} ] && [ \"$l\" != \"$t\" ]; then \
         {{ command -p mkdir -p \"${{s%/*}}\" && echo \"$t\" >\"$s\"; }} 2>/dev/null; {say}; fi"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_name_the_package_and_the_repository() {
        assert_eq!(npm_command(), "npm install -g ccforge");
        assert_eq!(
            cargo_command(),
            "cargo install --locked --git https://github.com/ccforge/forge"
        );
        // Cargo.toml's repository is the same address.
        let manifest = include_str!("../../../Cargo.toml");
        assert!(
            manifest.contains(&format!("repository = \"{REPOSITORY}\"")),
            "Cargo.toml's repository"
        );
        // The launcher's package is the one named.
        let pkg: serde_json::Value =
            serde_json::from_str(include_str!("../../../npm/ccforge/package.json"))
                .unwrap_or_default();
        assert_eq!(pkg["name"], NPM_PACKAGE);
    }
}
