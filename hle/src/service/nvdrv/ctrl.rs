//! `/dev/nvhost-ctrl`: syncpoints as the CPU sees them (read, increment, wait) and the 64 event slots a program
//! waits on fences through (libnx `nvFenceWait`: EventRegister, QueryEvent, EventWaitAsync, then a wait on the
//! event). Argument layouts are libnx's `nvioctlNvhostCtrl_*`; the semantics are those yuzu and Ryujinx give the
//! console's driver.
//!
//! The GPU runs each submission at once, so a fence is reached or not at the moment a wait asks; a wait that
//! must block arms its event slot, and the slot's event is signalled when a later submission (or a CPU
//! increment) reaches the value.

use super::{NvResult, gpu_host::GpuHost, ticks_to_gpu_ticks};
use crate::service::Failure;
use tandem_gpu::syncpoint::{Fence, SYNCPOINT_COUNT, has_reached};

const SYNCPT_READ: u32 = 0xc008_0014;
const SYNCPT_INCR: u32 = 0x4004_0015;
const SYNCPT_WAIT: u32 = 0xc00c_0016;
const SYNCPT_WAIT_EX: u32 = 0xc010_0019;
const SYNCPT_READ_MAX: u32 = 0xc008_001a;
const EVENT_SIGNAL: u32 = 0xc004_001c;
const EVENT_WAIT: u32 = 0xc010_001d;
const EVENT_WAIT_ASYNC: u32 = 0xc010_001e;
const EVENT_REGISTER: u32 = 0xc004_001f;
const EVENT_UNREGISTER: u32 = 0xc004_0020;
const EVENT_KILL: u32 = 0x4008_0021;

/// Event slots of the device.
pub const EVENT_SLOTS: u32 = 64;

fn word(argument: &[u8], index: usize) -> u32 {
    u32::from_le_bytes(argument[4 * index..4 * index + 4].try_into().expect("the argument has the ioctl's size"))
}

fn set_word(argument: &mut [u8], index: usize, value: u32) {
    argument[4 * index..4 * index + 4].copy_from_slice(&value.to_le_bytes());
}

/// An event id as QueryEvent takes it: `0x1000_0000 | syncpoint << 16 | slot` (EventWait's answer, libnx's
/// `NV_EVENT_ID_CTRL__SYNCPT`) or `syncpoint << 4 | slot` (EventWaitAsync's): (slot, syncpoint).
pub fn decode_event_id(id: u32) -> (u32, u32) {
    if id >> 28 == 1 { (id & 0xffff, id >> 16 & 0xfff) } else { (id & 0xf, id >> 4) }
}

/// Runs `request`; `None` for an ioctl this device does not have. The argument goes back whatever the result (a
/// wait that times out answers the event id to wait on). `Err(Failure)`: a wait Tandem cannot carry out.
pub fn ioctl(
    host: &mut GpuHost,
    request: u32,
    argument: &[u8],
    ticks: u64,
) -> Option<Result<(NvResult, Vec<u8>), Failure>> {
    let mut argument = argument.to_vec();
    // Every request of this device starts with a word (a syncpoint or an event's slot); a request number that
    // encodes a shorter argument is none of them.
    if argument.len() < 4 {
        return None;
    }
    let id = word(&argument, 0);
    let valid = id < SYNCPOINT_COUNT;
    let result = match request {
        // {id, out value}
        SYNCPT_READ | SYNCPT_READ_MAX if !valid => Err(NvResult::BadParameter),
        SYNCPT_READ => {
            set_word(&mut argument, 1, host.gpu.syncpoints.value(id).expect("checked"));
            Ok(())
        }
        SYNCPT_READ_MAX => {
            set_word(&mut argument, 1, host.gpu.syncpoints.max(id).expect("checked"));
            Ok(())
        }
        // {id}
        SYNCPT_INCR if !valid => Err(NvResult::BadParameter),
        SYNCPT_INCR => {
            host.gpu.increment_syncpoint(id).expect("checked");
            host.gpu.timestamp = ticks_to_gpu_ticks(ticks);
            Ok(())
        }
        // {id, threshold, timeout (ms, -1 forever)} and WaitEx's {.., out value}: only a fence already reached or a
        // zero timeout can be answered without blocking the caller.
        SYNCPT_WAIT | SYNCPT_WAIT_EX if !valid => Err(NvResult::BadParameter),
        SYNCPT_WAIT | SYNCPT_WAIT_EX => {
            let (threshold, timeout) = (word(&argument, 1), word(&argument, 2));
            let value = host.gpu.syncpoints.value(id).expect("checked");
            if has_reached(value, threshold) {
                if request == SYNCPT_WAIT_EX {
                    set_word(&mut argument, 3, value);
                }
                Ok(())
            } else if timeout == 0 {
                Err(NvResult::Timeout)
            } else {
                return Some(Err(Failure::Unimplemented {
                    interface: "nvdrv",
                    command_id: 1,
                    what: Some(format!(
                        "/dev/nvhost-ctrl SyncptWait on syncpoint {id} for {threshold} (at {value}) with a timeout: a \
                         blocking wait; programs wait through EventWaitAsync and the slot's event instead"
                    )),
                }));
            }
        }
        // {slot}
        EVENT_REGISTER => host.register_event(id),
        EVENT_UNREGISTER => host.unregister_event(id),
        // {u64 slot mask}
        EVENT_KILL => {
            let mask = u64::from(id) | u64::from(word(&argument, 1)) << 32;
            (0..EVENT_SLOTS).filter(|slot| mask >> slot & 1 == 1).try_for_each(|slot| host.unregister_event(slot))
        }
        // {event id}: cancels the slot's wait and clears its event.
        EVENT_SIGNAL => host.cancel_event_wait(decode_event_id(id).0),
        // {id, threshold, timeout, in/out value}: Success with the syncpoint's value when reached; otherwise Timeout,
        // with the slot's event armed and `value` the event id to query (EventWaitAsync: the slot came in `value`).
        EVENT_WAIT | EVENT_WAIT_ASYNC if !valid => Err(NvResult::BadParameter),
        EVENT_WAIT | EVENT_WAIT_ASYNC => {
            let (threshold, timeout) = (word(&argument, 1), word(&argument, 2));
            let value = host.gpu.syncpoints.value(id).expect("checked");
            if has_reached(value, threshold) {
                set_word(&mut argument, 3, value);
                Ok(())
            } else if timeout == 0 {
                Err(NvResult::Timeout)
            } else {
                let slot = if request == EVENT_WAIT_ASYNC { Some(word(&argument, 3)) } else { None };
                match host.arm_event(slot, Fence { id, value: threshold }) {
                    Ok(slot) => {
                        let event_id = if request == EVENT_WAIT_ASYNC {
                            id << 4 | slot
                        } else {
                            0x1000_0000 | (id & 0xfff) << 16 | slot
                        };
                        set_word(&mut argument, 3, event_id);
                        Err(NvResult::Timeout)
                    }
                    Err(error) => Err(error),
                }
            }
        }
        _ => return None,
    };
    Some(Ok((result.err().unwrap_or(NvResult::Success), argument)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request number whose argument is shorter than a word is none of this device's, whatever its number.
    #[test]
    fn requests_of_short_arguments_are_not_this_devices() {
        let mut host = GpuHost::default();
        for request in [0x0000_0000, 0xc000_0014, 0x4002_0015] {
            let size = (request >> 16 & 0x3fff) as usize;
            assert!(ioctl(&mut host, request, &vec![0; size], 0).is_none(), "{request:#x}");
        }
    }
}
