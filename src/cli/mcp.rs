//! `forge mcp`: forge's MCP server over stdio (see `crate::mcp`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::project::locate_project;
use crate::env::Env;
use crate::mcp::{self, project::Project};

/// Serve forge's tools to Claude Code over stdio (an MCP server)
///
/// Tools: `signal` (write an agent handoff whose Signal is valid by construction),
/// `inbox` (the Signals addressed to this agent, blocked first), `resolve` (answer
/// a blocked Signal, as `forge signal resolve`), `handoff` (write a session handoff
/// now, with the agent's own decisions and next steps), `status` (what `forge
/// status --json` says). Handoffs are resources too: forge://handoffs/<file>.
///
/// Claude Code starts it itself: the forge plugin declares it, or add it to a
/// project with `claude mcp add forge -- forge mcp`. It reads one JSON-RPC message
/// a line on stdin and answers on stdout until stdin closes. Each tool call is
/// recorded in .forge/logs/events.jsonl (`forge log`). The project is
/// $CLAUDE_PROJECT_DIR (set by Claude Code), else the current folder's.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  claude mcp add forge -- forge mcp          # this project, without the plugin\n",
        "  claude mcp add --scope project forge -- forge mcp   # commit it in .mcp.json\n",
        "  printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}' | forge mcp"
    )
)]
pub(crate) struct McpArgs {
    /// Project folder (default: $CLAUDE_PROJECT_DIR, else the current folder's
    /// project).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge mcp` until stdin closes.
pub(crate) fn run(args: &McpArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = locate_project(args.project.as_ref(), env)?;
    // Claude Code names the session it starts the server for; deep code gets it here.
    let session = std::env::var("CLAUDE_CODE_SESSION_ID").ok();
    let mut project = Project::new(paths, env.clone(), session);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    mcp::serve(stdin.lock(), stdout.lock(), &mut project)?;
    Ok(ExitCode::SUCCESS)
}
