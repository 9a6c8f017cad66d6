//! `set` and `set:sys`, the settings services (switchbrew "Settings services"): the system language, the
//! languages a console offers, the region, and the firmware version.

use super::{BufferKind, Call, Command, Failure, Interface, System};
use std::rc::Rc;

/// Horizon's languages, in the order of its `Language` enum; each code is the ASCII string packed into a u64.
pub const LANGUAGES: [&str; 18] = [
    "ja", "en-US", "fr", "de", "it", "es", "zh-CN", "ko", "nl", "pt", "ru", "zh-TW", "en-GB", "fr-CA", "es-419",
    "zh-Hans", "zh-Hant", "pt-BR",
];
/// GetAvailableLanguageCodes and its count answer at most this many (the list as it was before 4.0.0).
const LEGACY_LANGUAGE_COUNT: usize = 15;

/// A language code as Horizon passes it: the ASCII string, NUL-padded, as a little-endian u64.
pub fn language_code(language: &str) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..language.len()].copy_from_slice(language.as_bytes());
    u64::from_le_bytes(bytes)
}

/// `set`: ISettingsServer.
pub struct Settings {
    system: Rc<System>,
}

impl Settings {
    pub fn new(system: Rc<System>) -> Settings {
        Settings { system }
    }

    /// GetLanguageCode() -> u64.
    fn get_language_code(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(language_code(LANGUAGES[self.system.language]));
        Ok(())
    }

    /// Writes up to `limit` codes into buffer 0 (as many as fit) -> s32 count written.
    fn write_language_codes(call: &mut Call, limit: usize) -> Result<(), Failure> {
        let fit = (call.buffer(0).size / 8) as usize;
        let codes: Vec<u8> =
            LANGUAGES.iter().take(limit.min(fit)).flat_map(|language| language_code(language).to_le_bytes()).collect();
        call.write_buffer(0, &codes)?;
        call.push_u32((codes.len() / 8) as u32);
        Ok(())
    }

    /// GetAvailableLanguageCodes(out pointer buffer) -> s32.
    fn get_available_language_codes(&mut self, call: &mut Call) -> Result<(), Failure> {
        Self::write_language_codes(call, LEGACY_LANGUAGE_COUNT)
    }

    /// GetAvailableLanguageCodes2(out map-alias buffer) -> s32.
    fn get_available_language_codes2(&mut self, call: &mut Call) -> Result<(), Failure> {
        Self::write_language_codes(call, LANGUAGES.len())
    }

    /// GetAvailableLanguageCodeCount() -> s32.
    fn get_available_language_code_count(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(LEGACY_LANGUAGE_COUNT as u32);
        Ok(())
    }

    /// GetAvailableLanguageCodeCount2() -> s32.
    fn get_available_language_code_count2(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(LANGUAGES.len() as u32);
        Ok(())
    }

    /// GetRegionCode() -> s32.
    fn get_region_code(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(self.system.region as u32);
        Ok(())
    }
}

impl Interface for Settings {
    const NAME: &'static str = "set";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetLanguageCode", Self::get_language_code),
        Command::new(1, "GetAvailableLanguageCodes", Self::get_available_language_codes)
            .buffers(&[BufferKind::OutPointer]),
        Command::new(3, "GetAvailableLanguageCodeCount", Self::get_available_language_code_count),
        Command::new(4, "GetRegionCode", Self::get_region_code),
        Command::new(5, "GetAvailableLanguageCodes2", Self::get_available_language_codes2)
            .buffers(&[BufferKind::OutMapAlias]),
        Command::new(6, "GetAvailableLanguageCodeCount2", Self::get_available_language_code_count2),
    ];
}

/// The firmware version (switchbrew "System Version Title": the 0x100-byte structure set:sys returns).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FirmwareVersion {
    pub major: u8,
    pub minor: u8,
    pub micro: u8,
    pub revision_major: u8,
    pub revision_minor: u8,
}

impl FirmwareVersion {
    pub const fn new(major: u8, minor: u8, micro: u8) -> FirmwareVersion {
        FirmwareVersion { major, minor, micro, revision_major: 1, revision_minor: 0 }
    }

    /// The structure: version bytes, then the platform ("NX"), the version hash (unknown here: zeros), the
    /// display version and the display title.
    pub fn to_bytes(self, with_revision_minor: bool) -> [u8; 0x100] {
        let mut bytes = [0u8; 0x100];
        bytes[..3].copy_from_slice(&[self.major, self.minor, self.micro]);
        bytes[4] = self.revision_major;
        bytes[5] = if with_revision_minor { self.revision_minor } else { 0 };
        let display = format!("{}.{}.{}", self.major, self.minor, self.micro);
        let title = format!("NintendoSDK Firmware for NX {display}-{}.{}", self.revision_major, self.revision_minor);
        for (offset, text) in [(0x8, "NX"), (0x68, display.as_str()), (0x80, title.as_str())] {
            bytes[offset..offset + text.len()].copy_from_slice(text.as_bytes());
        }
        bytes
    }
}

/// `set:sys`: ISystemSettingsServer.
pub struct SystemSettings {
    system: Rc<System>,
}

impl SystemSettings {
    pub fn new(system: Rc<System>) -> SystemSettings {
        SystemSettings { system }
    }

    /// GetFirmwareVersion(out fixed-size pointer buffer): the revision's minor number reads as 0.
    fn get_firmware_version(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.write_buffer(0, &self.system.firmware.to_bytes(false))?;
        Ok(())
    }

    /// GetFirmwareVersion2(out fixed-size pointer buffer).
    fn get_firmware_version2(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.write_buffer(0, &self.system.firmware.to_bytes(true))?;
        Ok(())
    }
}

impl Interface for SystemSettings {
    const NAME: &'static str = "set:sys";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(3, "GetFirmwareVersion", Self::get_firmware_version).buffers(&[BufferKind::OutPointer]),
        Command::new(4, "GetFirmwareVersion2", Self::get_firmware_version2).buffers(&[BufferKind::OutPointer]),
    ];
}
