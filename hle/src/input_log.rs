//! The input log: what enters a run from the host, so that `tandem run --replay LOG` repeats the run exactly
//! (guest time comes from retired instructions, so everything else repeats by itself): the clocks' epoch, and the
//! controllers' input, keyed by the guest time of the hid sample that first saw it.
//!
//! The file is text, a line per fact: the format line, the build id of each module of the program it was
//! recorded with, the clock epoch, then in time order `pad TICK BUTTONS LX LY RX RY` lines (from the sample at
//! counter tick TICK on, the controllers report BUTTONS, hex `HidNpadButton` bits, and the sticks' positions)
//! and `touch TICK X Y` or `touch TICK up` lines (a finger on the touch screen at X, Y of its 1280x720 pixels
//! from that sample on, or none).

use crate::hex;
use crate::service::hid::InputState;
use std::fmt::Write as _;

const FORMAT_LINE: &str = "tandem input log 1";
/// A stick's reach each way (libnx's JOYSTICK_MAX).
const STICK_MAX: i32 = 0x7fff;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InputLog {
    /// The program's modules, by build id (a replay with another program is refused).
    pub build_ids: Vec<[u8; 32]>,
    /// The system clocks at boot, in POSIX seconds.
    pub clock_epoch: u64,
    /// The controllers' and the touch screen's input as it changed: (counter tick of the sample, what they report
    /// from then on).
    pub pad: Vec<(u64, InputState)>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputLogError {
    #[error("line {line}: {problem}")]
    Malformed { line: usize, problem: String },
    #[error("the log was recorded with another program (build ids {recorded} there, {running} here)")]
    OtherProgram { recorded: String, running: String },
}

/// The input from `tick` on, to change: a new entry (a copy of the last) unless the last is at `tick` already;
/// `None` if the last is later.
fn change(changes: &mut Vec<(u64, InputState)>, tick: u64) -> Option<&mut InputState> {
    match changes.last() {
        Some(&(last, _)) if last > tick => return None,
        Some(&(last, _)) if last == tick => {}
        last => {
            let state = last.map_or_else(InputState::default, |&(_, state)| state);
            changes.push((tick, state));
        }
    }
    changes.last_mut().map(|(_, state)| state)
}

impl InputLog {
    pub fn to_text(&self) -> String {
        let mut text = format!("{FORMAT_LINE}\n");
        for id in &self.build_ids {
            let _ = writeln!(text, "build-id {}", hex(id));
        }
        let _ = writeln!(text, "clock-epoch {}", self.clock_epoch);
        let mut last = InputState::default();
        for (tick, state) in &self.pad {
            let (l, r) = (state.stick_l, state.stick_r);
            if (state.buttons, l, r) != (last.buttons, last.stick_l, last.stick_r) {
                let _ = writeln!(text, "pad {tick} {:x} {} {} {} {}", state.buttons, l.0, l.1, r.0, r.1);
            }
            match state.touch {
                _ if state.touch == last.touch => {}
                Some((x, y)) => _ = writeln!(text, "touch {tick} {x} {y}"),
                None => _ = writeln!(text, "touch {tick} up"),
            }
            last = *state;
        }
        text
    }

    /// What the controllers report at the sample at `tick`: the last change at or before it.
    pub fn pad_at(&self, tick: u64) -> InputState {
        let changes = self.pad.partition_point(|&(at, _)| at <= tick);
        changes.checked_sub(1).map_or_else(InputState::default, |last| self.pad[last].1)
    }

    pub fn parse(text: &str) -> Result<InputLog, InputLogError> {
        let mut lines = text.lines().enumerate().map(|(n, line)| (n + 1, line));
        let malformed = |line, problem: &str| InputLogError::Malformed { line, problem: problem.to_string() };
        match lines.next() {
            Some((_, FORMAT_LINE)) => {}
            _ => return Err(malformed(1, &format!("not a Tandem input log (it must start with `{FORMAT_LINE}`)"))),
        }
        let (mut build_ids, mut clock_epoch, mut pad) = (Vec::new(), None, Vec::<(u64, InputState)>::new());
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
                Some(("pad", value)) => {
                    let fields: Vec<&str> = value.split(' ').collect();
                    let number = |at: usize| fields.get(at).and_then(|field| field.parse::<i32>().ok());
                    let axis = |at: usize| number(at).filter(|value| value.abs() <= STICK_MAX);
                    let parsed = (fields.len() == 6)
                        .then(|| {
                            let tick = fields[0].parse::<u64>().ok()?;
                            let buttons = u64::from_str_radix(fields[1], 16).ok()?;
                            Some((tick, buttons, (axis(2)?, axis(3)?), (axis(4)?, axis(5)?)))
                        })
                        .flatten();
                    let (tick, buttons, stick_l, stick_r) = parsed.ok_or_else(|| {
                        malformed(n, "a pad line is `pad TICK BUTTONS LX LY RX RY` (sticks within ±32767)")
                    })?;
                    let state = change(&mut pad, tick).ok_or_else(|| malformed(n, "input lines go forward in time"))?;
                    (state.buttons, state.stick_l, state.stick_r) = (buttons, stick_l, stick_r);
                }
                Some(("touch", value)) => {
                    let fields: Vec<&str> = value.split(' ').collect();
                    let coordinate = |at: usize, limit: u32| {
                        fields.get(at).and_then(|field| field.parse::<u32>().ok()).filter(|&c| c < limit)
                    };
                    let parsed = match fields.as_slice() {
                        [tick, "up"] => tick.parse::<u64>().ok().map(|tick| (tick, None)),
                        [tick, _, _] => tick
                            .parse::<u64>()
                            .ok()
                            .and_then(|tick| Some((tick, Some((coordinate(1, 1280)?, coordinate(2, 720)?))))),
                        _ => None,
                    };
                    let (tick, touch) = parsed.ok_or_else(|| {
                        malformed(n, "a touch line is `touch TICK X Y` (within 1280x720) or `touch TICK up`")
                    })?;
                    change(&mut pad, tick).ok_or_else(|| malformed(n, "input lines go forward in time"))?.touch = touch;
                }
                _ => return Err(malformed(n, &format!("unknown entry `{line}`"))),
            }
        }
        let clock_epoch = clock_epoch.ok_or_else(|| malformed(0, "no clock-epoch line"))?;
        Ok(InputLog { build_ids, clock_epoch, pad })
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
        let pressed = InputState { buttons: 0x1001, stick_l: (-32767, 12), stick_r: (0, 32767), touch: None };
        let touched = InputState { touch: Some((1279, 0)), ..pressed };
        let pad = vec![
            (320_000, pressed),
            (480_000, touched),
            (560_000, InputState { touch: Some((3, 719)), ..touched }),
            (640_000, InputState::default()),
        ];
        let log = InputLog { build_ids: vec![[0xab; 32], [1; 32]], clock_epoch: 1_767_225_600, pad };
        assert_eq!(InputLog::parse(&log.to_text()), Ok(log.clone()));
        assert_eq!(log.pad_at(319_999), InputState::default());
        assert_eq!(log.pad_at(320_000), pressed);
        assert_eq!(log.pad_at(479_999), pressed);
        assert_eq!(log.pad_at(639_999).touch, Some((3, 719)));
        assert_eq!(log.pad_at(1 << 40), InputState::default());
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
        assert_eq!(bad("tandem input log 1\nclock-epoch 5\npad 10 0 0 0 0 40000\n"), 3);
        assert_eq!(bad("tandem input log 1\nclock-epoch 5\npad 10 1 0 0 0 0\npad 9 2 0 0 0 0\n"), 4);
        assert_eq!(bad("tandem input log 1\nclock-epoch 5\ntouch 10 1280 5\n"), 3);
        assert_eq!(bad("tandem input log 1\nclock-epoch 5\ntouch 10 down\n"), 3);
        assert_eq!(bad("tandem input log 1\nclock-epoch 5\npad 10 1 0 0 0 0\ntouch 9 up\n"), 4);
        assert_eq!(bad("tandem input log 1\n"), 0);
    }
}
