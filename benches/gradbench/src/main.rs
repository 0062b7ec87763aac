//! The diffx GradBench tool: reads the eval's messages from stdin, one JSON object per line, and
//! writes one response per line to stdout (see `protocol`).

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!("diffx-gradbench: cannot read the next message: {e}");
                return ExitCode::FAILURE;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match diffx_gradbench::protocol::respond(&line) {
            Ok(response) => {
                // The eval may have gone away (it closes the pipe after its last message).
                if writeln!(stdout, "{response}")
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    return ExitCode::SUCCESS;
                }
            }
            Err(malformed) => {
                eprintln!("diffx-gradbench: {malformed}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
