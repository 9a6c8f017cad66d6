//! The input log: what enters a run from the host, so that `tandem run --replay LOG` repeats the run exactly
//! (guest time comes from retired instructions, so everything else repeats by itself). Today the host gives the
//! clocks' epoch; pad and touch input join this file, keyed by guest time, with the services that read them.
//!
//! The file is text, a line per fact: the format line, the build id of each module of the program it was
//! recorded with, then the inputs.

use std::fmt::Write as _;

const FORMAT_LINE: &str = "tandem input log 1";

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InputLog {
    /// The program's modules, by build id (a replay with another program is refused).
    pub build_ids: Vec<[u8; 32]>,
    /// The system clocks at boot, in POSIX seconds.
    pub clock_epoch: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputLogError {
    #[error("line {line}: {problem}")]
    Malformed { line: usize, problem: String },
    #[error("the log was recorded with another program (build ids {recorded} there, {running} here)")]
    OtherProgram { recorded: String, running: String },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl InputLog {
    pub fn to_text(&self) -> String {
        let mut text = format!("{FORMAT_LINE}\n");
        for id in &self.build_ids {
            let _ = writeln!(text, "build-id {}", hex(id));
        }
        let _ = writeln!(text, "clock-epoch {}", self.clock_epoch);
        text
    }

    pub fn parse(text: &str) -> Result<InputLog, InputLogError> {
        let mut lines = text.lines().enumerate().map(|(n, line)| (n + 1, line));
        let malformed = |line, problem: &str| InputLogError::Malformed { line, problem: problem.to_string() };
        match lines.next() {
            Some((_, FORMAT_LINE)) => {}
            _ => return Err(malformed(1, &format!("not a Tandem input log (it must start with `{FORMAT_LINE}`)"))),
        }
        let (mut build_ids, mut clock_epoch) = (Vec::new(), None);
        for (n, line) in lines {
            match line.split_once(' ') {
                Some(("build-id", value)) => {
                    let bytes = (value.len() == 64)
                        .then(|| (0..32).map(|i| u8::from_str_radix(&value[2 * i..2 * i + 2], 16).ok()).collect())
                        .flatten();
                    let bytes: Vec<u8> = bytes.ok_or_else(|| malformed(n, "a build id is 64 hex digits"))?;
                    build_ids.push(bytes.try_into().expect("32 bytes"));
                }
                Some(("clock-epoch", value)) => {
                    clock_epoch = Some(value.parse().map_err(|_| malformed(n, "the clock epoch is POSIX seconds"))?);
                }
                _ => return Err(malformed(n, &format!("unknown entry `{line}`"))),
            }
        }
        let clock_epoch = clock_epoch.ok_or_else(|| malformed(0, "no clock-epoch line"))?;
        Ok(InputLog { build_ids, clock_epoch })
    }

    /// Refuses a log recorded with other modules than `running`'s.
    pub fn check_program(&self, running: &[[u8; 32]]) -> Result<(), InputLogError> {
        if self.build_ids != running {
            let join = |ids: &[[u8; 32]]| ids.iter().map(|id| hex(&id[..8])).collect::<Vec<_>>().join(",");
            return Err(InputLogError::OtherProgram { recorded: join(&self.build_ids), running: join(running) });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_reads_back_what_it_wrote() {
        let log = InputLog { build_ids: vec![[0xab; 32], [1; 32]], clock_epoch: 1_767_225_600 };
        assert_eq!(InputLog::parse(&log.to_text()), Ok(log.clone()));
        assert!(log.check_program(&[[0xab; 32], [1; 32]]).is_ok());
        assert!(matches!(log.check_program(&[[0xab; 32]]), Err(InputLogError::OtherProgram { .. })));
    }

    #[test]
    fn malformed_logs_name_the_line() {
        let bad = |text: &str| match InputLog::parse(text) {
            Err(InputLogError::Malformed { line, .. }) => line,
            other => panic!("{other:?}"),
        };
        assert_eq!(bad("hello\n"), 1);
        assert_eq!(bad("tandem input log 1\nbuild-id 12\nclock-epoch 5\n"), 2);
        assert_eq!(bad("tandem input log 1\nclock-epoch soon\n"), 2);
        assert_eq!(bad("tandem input log 1\npad 3\n"), 2);
        assert_eq!(bad("tandem input log 1\n"), 0);
    }
}
