// timer RUNS INPUT CMD [ARGS] [::: CMD [ARGS]]... : runs the commands round-robin,
// RUNS times each after 10 untimed rounds, each with INPUT on stdin (a command that
// starts with `<FILE` gets FILE instead); prints one line per command: median min
// mean (ms). With BENCH_PREP set, `sh -c "$BENCH_PREP"` runs untimed before each
// round (to change the state every round measures, e.g. write a new handoff); with
// BENCH_WARMUP=N, N untimed rounds instead of 10.
use std::process::{Command, Stdio};
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let runs: usize = a[1].parse().unwrap();
    let cmds: Vec<&[String]> = a[3..].split(|x| x == ":::").collect();
    let mut t = vec![Vec::with_capacity(runs); cmds.len()];
    let prep = std::env::var("BENCH_PREP").ok();
    let warmup: usize = std::env::var("BENCH_WARMUP").ok().and_then(|w| w.parse().ok()).unwrap_or(10);
    for i in 0..runs + warmup {
        if let Some(prep) = &prep {
            let status = Command::new("sh").arg("-c").arg(prep).status().unwrap();
            assert!(status.success(), "BENCH_PREP failed");
        }
        for (c, cmd) in cmds.iter().enumerate() {
            let (file, cmd) = match cmd[0].strip_prefix('<') {
                Some(f) => (f, &cmd[1..]),
                None => (a[2].as_str(), *cmd),
            };
            let input = std::fs::File::open(file).unwrap();
            let start = Instant::now();
            let status = Command::new(&cmd[0]).args(&cmd[1..]).stdin(input)
                .stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
            let e = start.elapsed().as_secs_f64() * 1000.0;
            assert!(status.success(), "{:?} failed", cmd);
            if i >= warmup { t[c].push(e); }
        }
    }
    for v in &mut t {
        v.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        println!("{:.3} {:.3} {:.3}", v[v.len() / 2], v[0], mean);
    }
}
