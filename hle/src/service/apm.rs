//! `apm`: performance modes and configurations (switchbrew "PPC services"): the clocks a program asks for in each
//! performance mode. Guest time does not depend on clocks here, so a configuration is kept and read back, and
//! changes nothing else. Defaults as Ryujinx's `PerformanceState` records them: 0x00020003 (CPU 1020 MHz, GPU 307.2
//! MHz, memory 1331.2 MHz) in normal mode, 0x00020004 (GPU 384 MHz) in boost mode.

use super::{Call, Command, Failure, Interface, System};
use crate::ipc::ResultCode;
use std::cell::RefCell;
use std::rc::Rc;

/// apm's InvalidParameters (module 148, description 1): a performance mode other than normal (0) or boost (1).
const INVALID_PARAMETERS: ResultCode = ResultCode::new(148, 1);

/// The configuration of each performance mode, shared by every session.
#[derive(Clone, Copy, Debug)]
pub struct Performance {
    configurations: [u32; 2],
}

impl Default for Performance {
    fn default() -> Performance {
        Performance { configurations: [0x0002_0003, 0x0002_0004] }
    }
}

/// IManager (`apm`, and `apm:am` where it moved in 8.0.0).
pub struct Manager {
    system: Rc<System>,
}

impl Manager {
    pub fn new(system: Rc<System>) -> Manager {
        Manager { system }
    }

    /// OpenSession() -> ISession.
    fn open_session(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(Session { system: self.system.clone() })));
        Ok(())
    }

    /// GetPerformanceMode() -> u32: boost when docked, normal in handheld mode.
    fn get_performance_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(u32::from(self.system.docked));
        Ok(())
    }

    /// IsCpuOverclockEnabled() -> bool: never.
    fn is_cpu_overclock_enabled(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(0);
        Ok(())
    }
}

impl Interface for Manager {
    const NAME: &'static str = "apm";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "OpenSession", Self::open_session),
        Command::new(1, "GetPerformanceMode", Self::get_performance_mode),
        Command::new(6, "IsCpuOverclockEnabled", Self::is_cpu_overclock_enabled),
    ];
}

/// ISession.
pub struct Session {
    system: Rc<System>,
}

impl Session {
    fn mode(call: &Call) -> Result<usize, Failure> {
        match call.u32(0) {
            mode @ 0..=1 => Ok(mode as usize),
            _ => Err(INVALID_PARAMETERS.into()),
        }
    }

    /// SetPerformanceConfiguration(u32 mode, u32 configuration).
    fn set_configuration(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = Self::mode(call)?;
        self.system.performance.borrow_mut().configurations[mode] = call.u32(4);
        Ok(())
    }

    /// GetPerformanceConfiguration(u32 mode) -> u32.
    fn get_configuration(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = Self::mode(call)?;
        let configuration = self.system.performance.borrow().configurations[mode];
        call.push_u32(configuration);
        Ok(())
    }
}

impl Interface for Session {
    const NAME: &'static str = "apm::ISession";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "SetPerformanceConfiguration", Self::set_configuration).input(8),
        Command::new(1, "GetPerformanceConfiguration", Self::get_configuration).input(4),
    ];
}
