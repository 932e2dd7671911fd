//! `forge run`: carry a headless task across context limits.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, anyhow};

use crate::app::relay::{Options, Output, Relay};
use crate::config;
use crate::env::Env;
use crate::model::agents::relay::parse_command;

/// Run Claude Code headless and carry its task across context limits.
///
/// Runs `claude -p "<task>" [args…]` with `--output-format stream-json --verbose`
/// (and forge's PostToolUse hook added through --settings), shows what it does, and
/// tracks the context from the main chain's replies. At the threshold forge asks the
/// session to stop once its current reply's tool calls have run (the hook answers
/// continue:false), so nothing is interrupted; then it writes a handoff (trigger
/// `relay`, with the task), runs your [[on_threshold]] hooks and starts the next
/// session with a prompt that holds the handoff and the task. After --max-handoffs
/// continuations the last session runs to its end. The chain is recorded in
/// .forge/logs/chains/<first-session-id>.json. A pending resume you chose stays
/// pending. The exit status is the last session's; Ctrl-C stops the chain and
/// leaves a handoff.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge run -- claude -p \"Implement SPEC.md\"\n  \
        forge run --threshold 70 --max-handoffs 5 -- claude -p \"Fix the failing tests\" --model opus\n  \
        forge run --json -- claude -p \"Summarise the repo\" | jq -c 'select(.type == \"result\")'"
)]
pub(crate) struct RunArgs {
    /// The context % that hands over (default: [relay] threshold, 75; Claude Code compacts a 200k session on its own at about 83.5).
    #[arg(long, value_name = "PCT")]
    pub(crate) threshold: Option<f64>,
    /// The most continuations (default: [relay] max_handoffs, 3).
    #[arg(long, value_name = "N")]
    pub(crate) max_handoffs: Option<u32>,
    /// Run as this agent (sets FORGE_AGENT; its [agents.NAME] settings apply).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Pass Claude Code's stream-json lines through instead of readable text.
    #[arg(long)]
    pub(crate) json: bool,
    /// The command: claude -p "<task>" [claude args…].
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

struct Terminal;

impl Output for Terminal {
    fn out(&mut self, text: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = o.write_all(b"\n");
        }
        let _ = o.flush();
    }

    fn note(&mut self, text: &str) {
        super::print_err(&format!("forge: {text}\n"));
    }
}

/// Runs `forge run`.
pub(crate) fn run(args: &RunArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let mut cmd = parse_command(&args.command).map_err(|e| anyhow!("{e}"))?;
    // Started by its absolute path, found in an absolute folder of PATH: never a
    // `./claude` of the project.
    let program = env
        .resolve_program(&cmd.program)
        .map_err(|why| anyhow!("cannot run {}: {why}", cmd.program))?;
    cmd.program = program.into_os_string().into_string().map_err(|p| {
        anyhow!(
            "cannot run {}: its path is not UTF-8 ({})",
            cmd.program,
            p.to_string_lossy()
        )
    })?;
    let paths = crate::app::project::project_for_writing(None, env)?;
    // The task goes to claude as one argument, and each continuation adds the
    // handoff: refuse a task that cannot fit before anything starts (or is written).
    let sample = paths.handoffs().join("handoff-20260101-000000-99.md");
    crate::model::agents::relay::fits_in_an_argument(&cmd.task, &sample.to_string_lossy())
        .map_err(|e| anyhow!("{e}"))?;
    let loaded = match &args.agent {
        Some(a) => config::load_as(&paths, env, a),
        None => config::load(&paths, env),
    }
    .map_err(|e| anyhow!("{e}\nFix the file, or check it with `forge config validate`."))?;
    let cfg = loaded.config;
    let threshold = args.threshold.unwrap_or(cfg.relay.threshold);
    if !(1.0..=100.0).contains(&threshold) {
        return Err(anyhow!(
            "--threshold must be between 1 and 100, found {threshold}"
        ));
    }
    let own = match &cmd.settings {
        Some(arg) => Some(crate::app::relay::own_settings(arg).map_err(|e| anyhow!("{e}"))?),
        None => None,
    };
    let forge = std::env::current_exe().context("finding this forge for the sessions' hook")?;
    let settings = crate::model::agents::relay::settings_with_stop_hook(
        own,
        &crate::app::relay::stop_hook_command(&forge),
    )
    .to_string();
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("watching for Ctrl-C")?;
    }
    let relay = Relay {
        paths: &paths,
        env,
        cfg: &cfg,
        opts: Options {
            threshold,
            max_handoffs: args.max_handoffs.unwrap_or(cfg.relay.max_handoffs),
            grace: Duration::from_secs(cfg.relay.grace_secs),
            json: args.json,
            agent: args.agent.clone(),
            settings,
        },
        stop,
    };
    let code = relay.run(&cmd, &mut Terminal);
    Ok(ExitCode::from(
        u8::try_from(code.clamp(0, 255)).unwrap_or(1),
    ))
}
