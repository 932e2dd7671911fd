//! `forge tui`: the dashboard, for a side pane next to Claude Code.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::app::project::Paths;
use crate::app::snapshot::GitSource;
use crate::env::Env;
use crate::model::dashboard::Model;
use crate::model::dashboard::fleet::FleetModel;
use crate::tui::{self, Session, demo};

/// Show the live dashboard for a side pane next to Claude Code
///
/// Panes: context gauge and trend, last session, flags, sessions needing attention,
/// the handoff inbox (blocked Signals first) and a preview of the selected handoff.
///
/// It updates when files under .forge/ change, and within about a second of a git
/// checkout, commit or `git add` (other edits within a few seconds). Press ? for
/// the keys, q to quit (Esc twice quits too).
/// In a project forge is not set up in yet, it says what to run instead.
///
/// L0–L3 are the context levels: L1 from [context] warn (70% by default), L2 from
/// critical (85%), L3 from emergency (95%); the header says the project's values.
///
/// With --all it opens on the fleet: every registered project's live sessions, most
/// urgent first (from $XDG_STATE_HOME/forge/projects.json, which the hooks keep);
/// Enter opens that project's dashboard, q or Esc there comes back; y and n answer
/// the permission prompt a session's tmux pane shows, i types its next prompt, t goes
/// to its pane. A project's dashboard has the same in its sessions pane (p approves
/// there, as y copies the session id).
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  forge tui                      # this project, live\n  \
    forge tui --all                # every project's live sessions; Enter opens one\n  \
    forge tui --demo               # a bundled sample project\n  \
    forge tui --once --width 100 --height 30 > frame.txt"
)]
pub(crate) struct TuiArgs {
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR", conflicts_with = "demo")]
    pub(crate) project: Option<PathBuf>,
    /// Every registered project's live sessions (the fleet); Enter opens one.
    #[arg(long, conflicts_with_all = ["project", "demo"])]
    pub(crate) all: bool,
    /// Open a bundled sample project (copied to a temporary folder).
    #[arg(long)]
    pub(crate) demo: bool,
    /// Print one frame as plain text and exit (for scripts and tests).
    #[arg(long)]
    pub(crate) once: bool,
    /// Frame width for --once (default: $COLUMNS, else 100).
    #[arg(long, value_name = "COLS", requires = "once")]
    pub(crate) width: Option<u16>,
    /// Frame height for --once (default: $LINES, else 30).
    #[arg(long, value_name = "ROWS", requires = "once")]
    pub(crate) height: Option<u16>,
    /// Append the time of every frame drawn to FILE (for the latency benchmark).
    #[arg(long, value_name = "FILE", hide = true)]
    pub(crate) trace_draws: Option<PathBuf>,
}

/// The largest frame `--once` draws, each way.
const ONCE_MAX: u16 = 2000;

/// The size of the `--once` frame: `--width`/`--height`, else `$COLUMNS`/`$LINES`,
/// else 100×30. A frame is a buffer of width × height cells: a size no terminal has
/// would only exhaust memory, so it is refused (before anything is read).
fn once_size(args: &TuiArgs, env: &Env) -> anyhow::Result<(u16, u16)> {
    let (width, height) = (
        args.width.or(env.columns).unwrap_or(100),
        args.height.or(env.lines).unwrap_or(30),
    );
    if width > ONCE_MAX || height > ONCE_MAX {
        bail!("--once draws at most {ONCE_MAX}×{ONCE_MAX} cells; asked for {width}×{height}");
    }
    Ok((width, height))
}

/// The live dashboards need a terminal.
fn need_terminal() -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        bail!("forge tui needs a terminal; use --once to print one frame instead");
    }
    Ok(())
}

/// The exit status of a dashboard: 0 after q, 128 + the signal that ended it.
fn exit_status(ended_by: Option<i32>) -> ExitCode {
    match ended_by {
        Some(sig) => ExitCode::from(u8::try_from(128 + sig).unwrap_or(1)),
        None => ExitCode::SUCCESS,
    }
}

/// Runs `forge tui`.
pub(crate) fn run(args: &TuiArgs, env: &Env) -> anyhow::Result<ExitCode> {
    if args.all {
        return run_all(args, env);
    }
    let mut env = env.clone();
    let once = args.once.then(|| once_size(args, &env)).transpose()?;
    // Kept alive until the dashboard closes; removed afterwards.
    let mut _demo_dir = None;
    let (paths, git) = if args.demo {
        let dir = tempfile::Builder::new()
            .prefix("forge-demo-")
            .tempdir()
            .context("creating a temporary folder for the demo")?;
        let root = demo::install(dir.path(), env.now).context("writing the demo project")?;
        // The demo's pending resume must not land in the real ~/.claude.
        env.home = Some(dir.path().join("home"));
        env.claude_config_dir = None;
        _demo_dir = Some(dir);
        (Paths::new(root), GitSource::Cache)
    } else {
        let paths = crate::app::project::project_paths(args.project.as_ref(), &env)?;
        if !crate::app::project::is_set_up(&paths, &env) {
            bail!("{}", crate::app::project::not_set_up_message(&paths));
        }
        (paths, GitSource::Live)
    };
    let mut model = tui::initial_model(&paths, &env, git);
    model.demo = args.demo;
    let session = Session {
        paths,
        env: env.clone(),
        no_color: env.no_color,
        trace: args.trace_draws.clone(),
        poll_git: git == GitSource::Live,
    };
    if let Some((width, height)) = once {
        let start = model.start();
        tui::run_effects(&mut model, &session, start);
        super::print_out(&tui::render_text(&model, width, height));
        return Ok(ExitCode::SUCCESS);
    }
    need_terminal()?;
    // Ended by a signal: the terminal is restored and, on the way out of this
    // function, the demo's folder removed; the exit status says which signal.
    Ok(exit_status(tui::run(model, session)?))
}

/// `forge tui --all`: the fleet list, and the dashboards it opens.
fn run_all(args: &TuiArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let file = crate::app::status::registry_path(env)?;
    let mut model = FleetModel::new(tui::fleet::read(&file), file, env.now);
    model.home.clone_from(&env.home);
    model.tmux = env.tmux.then(|| {
        env.tmux_socket
            .as_ref()
            .and_then(|p| p.to_str().map(str::to_owned))
    });
    if args.once {
        let (width, height) = once_size(args, env)?;
        let view = crate::ui::fleet::FleetView::new(&model);
        super::print_out(&crate::ui::frame_text(view, width, height));
        return Ok(ExitCode::SUCCESS);
    }
    need_terminal()?;
    let open = |root: &Path| open_project(root, env);
    let switch =
        |pane: &str, socket: Option<&str>| crate::app::fleet::switch_to_pane(env, pane, socket);
    let answer = |what: &crate::model::dashboard::fleet::PaneSend| {
        crate::app::fleet::send_to_pane(env, what)
    };
    Ok(exit_status(tui::fleet::run(
        model,
        env.no_color,
        &open,
        &switch,
        &answer,
    )?))
}

/// The dashboard of the project at `root` (a registered project's root), or why it
/// cannot be opened: checked like `forge tui --project ROOT`.
fn open_project(root: &Path, env: &Env) -> Result<(Model, Session), String> {
    let shown = crate::model::text::sanitize::single_line(&root.display().to_string()).into_owned();
    if !root.is_absolute() || !root.is_dir() {
        return Err(format!(
            "{shown} is gone (it leaves the list a week after its hooks last ran)"
        ));
    }
    let mut env = env.clone();
    env.now = crate::env::wall_clock();
    let paths = crate::app::project::project_paths(Some(&root.to_path_buf()), &env)
        .map_err(|e| format!("{e:#}"))?;
    if !crate::app::project::is_set_up(&paths, &env) {
        return Err(crate::app::project::not_set_up_message(&paths));
    }
    let model = tui::initial_model(&paths, &env, GitSource::Live);
    let session = Session {
        paths,
        no_color: env.no_color,
        env,
        trace: None,
        poll_git: true,
    };
    Ok((model, session))
}
