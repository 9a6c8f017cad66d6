//! `time:u`, `time:a`, `time:s`: the time services (switchbrew "PSC services", IStaticService). Clocks read
//! guest time, so runs repeat: the steady clock counts seconds of guest time since boot, and the system clocks add
//! the epoch the run started at ([`System::clock_epoch`]). Time zones: UTC, converted by the civil calendar
//! (proleptic Gregorian) both ways.

use super::{BufferKind, Call, Command, Failure, Interface, System};
use crate::ipc::ResultCode;
use std::cell::RefCell;
use std::rc::Rc;
use tandem_reference::engine::COUNTER_FREQUENCY_HZ;

/// The steady clock's source id: fixed, since guest time restarts with every run.
const STEADY_CLOCK_SOURCE: [u8; 16] = *b"tandem-guest-clk";
/// The only time zone Tandem has, and what LoadTimeZoneRule writes at the start of a rule buffer to know it again.
const UTC: &[u8] = b"UTC";
/// LocationName: 0x24 bytes.
const LOCATION_NAME_SIZE: usize = 0x24;
/// A TimeZoneRule buffer's size.
const RULE_SIZE: u64 = 0x4000;
/// An argument that is not a rule LoadTimeZoneRule wrote (Horizon's InvalidTimeZoneBinary would need tzdata).
const INVALID_RULE: ResultCode = ResultCode::new(116, 903);

/// IStaticService.
pub struct StaticService {
    system: Rc<System>,
}

impl StaticService {
    pub fn new(system: Rc<System>) -> StaticService {
        StaticService { system }
    }

    fn system_clock(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(SystemClock { epoch: self.system.clock_epoch })));
        Ok(())
    }

    /// GetStandardSteadyClock() -> ISteadyClock.
    fn steady_clock(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(SteadyClock)));
        Ok(())
    }

    /// GetTimeZoneService() -> ITimeZoneService.
    fn time_zone_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(TimeZoneService)));
        Ok(())
    }

    /// GetSharedMemoryNativeHandle() -> copied handle: the clocks' contexts in time's shared memory, which libnx
    /// reads instead of asking the clocks (its `_timeReadSharedmemObj`): at 0x0 the steady clock's base (0 ns:
    /// the steady clock counts guest time since boot), at 0x38 and 0x80 the local and network system clocks'
    /// contexts (the epoch as the offset), each object a u32 counter, padding, then two copies the counter's low
    /// bit picks between.
    fn shared_memory(&mut self, call: &mut Call) -> Result<(), Failure> {
        let memory = &self.system.time_shared_memory;
        let mut steady = [0u8; 0x18];
        steady[8..].copy_from_slice(&STEADY_CLOCK_SOURCE);
        let context = system_clock_context(self.system.clock_epoch);
        for (offset, object) in [(0x0, &steady[..]), (0x38, &context[..]), (0x80, &context[..])] {
            memory.write(offset, &0u32.to_le_bytes());
            memory.write(offset + 8, object);
            memory.write(offset + 8 + object.len(), object);
        }
        call.copy_shared_memories.push(memory.clone());
        Ok(())
    }

    /// IsStandardUserSystemClockAutomaticCorrectionEnabled() -> bool: no network clock to correct from.
    fn is_automatic_correction_enabled(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(0);
        Ok(())
    }
}

impl Interface for StaticService {
    const NAME: &'static str = "time";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetStandardUserSystemClock", Self::system_clock),
        Command::new(1, "GetStandardNetworkSystemClock", Self::system_clock),
        Command::new(2, "GetStandardSteadyClock", Self::steady_clock),
        Command::new(3, "GetTimeZoneService", Self::time_zone_service),
        Command::new(4, "GetStandardLocalSystemClock", Self::system_clock),
        Command::new(20, "GetSharedMemoryNativeHandle", Self::shared_memory),
        Command::new(100, "IsStandardUserSystemClockAutomaticCorrectionEnabled", Self::is_automatic_correction_enabled),
    ];
}

/// Seconds of guest time since boot.
fn steady_seconds(call: &Call) -> u64 {
    call.ticks / COUNTER_FREQUENCY_HZ
}

/// A SystemClockContext {offset, SteadyClockTimePoint}: the clock was set at boot (time point 0), so its time is
/// `offset` plus the steady clock's. It stays the same until the clock is set again, and the same in IPC answers
/// and in the shared memory.
fn system_clock_context(offset: u64) -> [u8; 0x20] {
    let mut context = [0u8; 0x20];
    context[..8].copy_from_slice(&offset.to_le_bytes());
    context[16..].copy_from_slice(&STEADY_CLOCK_SOURCE);
    context
}

/// SteadyClockTimePoint: seconds, then the clock's source id.
fn push_time_point(call: &mut Call) {
    let seconds = steady_seconds(call);
    call.push_u64(seconds);
    call.output.extend_from_slice(&STEADY_CLOCK_SOURCE);
}

/// ISystemClock (user, network and local clocks alike).
pub struct SystemClock {
    epoch: u64,
}

impl SystemClock {
    /// GetCurrentTime() -> POSIX seconds.
    fn get_current_time(&mut self, call: &mut Call) -> Result<(), Failure> {
        let now = self.epoch + steady_seconds(call);
        call.push_u64(now);
        Ok(())
    }

    /// GetSystemClockContext() -> SystemClockContext.
    fn get_system_clock_context(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.output.extend_from_slice(&system_clock_context(self.epoch));
        Ok(())
    }
}

impl Interface for SystemClock {
    const NAME: &'static str = "time::ISystemClock";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetCurrentTime", Self::get_current_time),
        Command::new(2, "GetSystemClockContext", Self::get_system_clock_context),
    ];
}

/// ISteadyClock.
pub struct SteadyClock;

impl SteadyClock {
    /// GetCurrentTimePoint() -> SteadyClockTimePoint.
    fn get_current_time_point(&mut self, call: &mut Call) -> Result<(), Failure> {
        push_time_point(call);
        Ok(())
    }

    /// GetTestOffset() and GetInternalOffset() -> s64: none.
    fn zero_offset(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(0);
        Ok(())
    }
}

impl Interface for SteadyClock {
    const NAME: &'static str = "time::ISteadyClock";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetCurrentTimePoint", Self::get_current_time_point),
        Command::new(2, "GetTestOffset", Self::zero_offset),
        Command::new(200, "GetInternalOffset", Self::zero_offset),
    ];
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12, any day: days past the month run on).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day count since 1970-01-01: (year, month 1-12, day 1-31).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    (if month <= 2 { year_of_era + era * 400 + 1 } else { year_of_era + era * 400 }, month, day)
}

/// ITimeZoneService, for UTC.
pub struct TimeZoneService;

impl TimeZoneService {
    /// GetDeviceLocationName() -> LocationName.
    fn get_device_location_name(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mut name = [0u8; LOCATION_NAME_SIZE];
        name[..UTC.len()].copy_from_slice(UTC);
        call.output.extend_from_slice(&name);
        Ok(())
    }

    /// GetTotalLocationNameCount() -> s32.
    fn get_total_location_name_count(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(1);
        Ok(())
    }

    /// LoadTimeZoneRule(LocationName, out rule buffer).
    fn load_time_zone_rule(&mut self, call: &mut Call) -> Result<(), Failure> {
        let name = call.argument_slice(0, LOCATION_NAME_SIZE);
        let length = name.iter().position(|&b| b == 0).unwrap_or(LOCATION_NAME_SIZE);
        if &name[..length] != UTC {
            let zone = String::from_utf8_lossy(&name[..length]).into_owned();
            return Err(Failure::Unimplemented {
                interface: Self::NAME,
                command_id: 4,
                what: Some(format!("LoadTimeZoneRule(\"{zone}\"): Tandem knows only UTC")),
            });
        }
        if call.buffer(0).size < RULE_SIZE {
            return Err(super::sf::INVALID_HEADER_SIZE.into());
        }
        call.write_buffer(0, UTC)?;
        Ok(())
    }

    /// CalendarTime (year, month, day, hour, minute, second) and CalendarAdditionalInfo (day of week, day of
    /// year, zone name, DST flag, UTC offset) of POSIX seconds, in UTC.
    fn calendar_time(call: &mut Call, posix: i64) {
        let (days, seconds) = (posix.div_euclid(86_400), posix.rem_euclid(86_400));
        let (year, month, day) = civil_from_days(days);
        call.output.extend_from_slice(&(year as i16).to_le_bytes());
        call.output.extend_from_slice(&[month as u8, day as u8, (seconds / 3600) as u8, (seconds / 60 % 60) as u8]);
        call.output.extend_from_slice(&[(seconds % 60) as u8, 0]);
        call.push_u32((days + 4).rem_euclid(7) as u32); // 1970-01-01 was a Thursday
        call.push_u32((days - days_from_civil(year, 1, 1)) as u32);
        call.output.extend_from_slice(b"UTC\0\0\0\0\0");
        call.push_u32(0);
        call.push_u32(0);
    }

    /// The POSIX seconds of the CalendarTime in the arguments.
    fn posix_time(call: &Call) -> i64 {
        let raw = call.argument_slice(0, 8);
        let year = i64::from(i16::from_le_bytes([raw[0], raw[1]]));
        let [month, day, hour, minute, second] = [2, 3, 4, 5, 6].map(|i| i64::from(raw[i] as i8));
        // Months past 12 (or below 1) carry into the year, as mktime's normalisation does.
        let (year, month) = (year + (month - 1).div_euclid(12), (month - 1).rem_euclid(12) + 1);
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The rule in buffer 0 must be the one LoadTimeZoneRule wrote.
    fn check_rule(call: &Call) -> Result<(), Failure> {
        let rule = call.read_buffer(0, UTC.len())?;
        if !rule.starts_with(UTC) {
            return Err(INVALID_RULE.into());
        }
        Ok(())
    }

    /// ToCalendarTime(u64 posix, in rule) -> CalendarTime, CalendarAdditionalInfo.
    fn calendar_from_posix(&mut self, call: &mut Call) -> Result<(), Failure> {
        Self::check_rule(call)?;
        let posix = call.u64(0) as i64;
        Self::calendar_time(call, posix);
        Ok(())
    }

    /// ToCalendarTimeWithMyRule(u64 posix) -> CalendarTime, CalendarAdditionalInfo.
    fn calendar_from_posix_with_my_rule(&mut self, call: &mut Call) -> Result<(), Failure> {
        let posix = call.u64(0) as i64;
        Self::calendar_time(call, posix);
        Ok(())
    }

    /// Writes the one POSIX time of the CalendarTime into the out buffer (`n`) -> s32 count.
    fn write_posix_time(call: &mut Call, n: usize) -> Result<(), Failure> {
        let posix = Self::posix_time(call);
        let written = call.write_buffer(n, &posix.to_le_bytes())?;
        call.push_u32(u32::from(written == 8));
        Ok(())
    }

    /// ToPosixTime(CalendarTime, in rule, out u64 array) -> s32 count.
    fn posix_from_calendar(&mut self, call: &mut Call) -> Result<(), Failure> {
        Self::check_rule(call)?;
        Self::write_posix_time(call, 1)
    }

    /// ToPosixTimeWithMyRule(CalendarTime, out u64 array) -> s32 count.
    fn posix_from_calendar_with_my_rule(&mut self, call: &mut Call) -> Result<(), Failure> {
        Self::write_posix_time(call, 0)
    }
}

impl Interface for TimeZoneService {
    const NAME: &'static str = "time::ITimeZoneService";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetDeviceLocationName", Self::get_device_location_name),
        Command::new(2, "GetTotalLocationNameCount", Self::get_total_location_name_count),
        Command::new(4, "LoadTimeZoneRule", Self::load_time_zone_rule)
            .input(LOCATION_NAME_SIZE)
            .buffers(&[BufferKind::OutMapAlias]),
        Command::new(100, "ToCalendarTime", Self::calendar_from_posix).input(8).buffers(&[BufferKind::InMapAlias]),
        Command::new(101, "ToCalendarTimeWithMyRule", Self::calendar_from_posix_with_my_rule).input(8),
        Command::new(201, "ToPosixTime", Self::posix_from_calendar)
            .input(8)
            .buffers(&[BufferKind::InMapAlias, BufferKind::OutPointer]),
        Command::new(202, "ToPosixTimeWithMyRule", Self::posix_from_calendar_with_my_rule)
            .input(8)
            .buffers(&[BufferKind::OutPointer]),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dates whose day numbers are known: the epoch, the last day before a leap day of a century year, 2038's
    /// 32-bit overflow, and a date before the epoch.
    #[test]
    fn the_civil_calendar_matches_known_dates() {
        for (days, date) in [
            (0, (1970, 1, 1)),
            (11_015, (2000, 2, 28)),
            (11_016, (2000, 2, 29)),
            (11_017, (2000, 3, 1)),
            (24_855, (2038, 1, 19)),
            (-1, (1969, 12, 31)),
            (-719_468, (0, 3, 1)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
        }
        for days in (-1_000_000..1_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
