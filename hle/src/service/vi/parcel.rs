//! Android parcels as Horizon's binder driver carries them (libnx `display/parcel.c`, switchbrew "Nvnflinger
//! services"): a 16-byte header (data size, data offset, objects size, objects offset), then 4-byte-aligned
//! items. Every read is bounds-checked: a short or hostile parcel is a `ParcelError`, never a read past it.

#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ParcelError {
    #[error("the parcel's header ({data_offset:#x} + {data_size:#x}) lies outside its {length:#x} bytes")]
    Header { data_offset: u32, data_size: u32, length: usize },
    #[error("the parcel ends at {end:#x}, before the {wanted} bytes at {at:#x}")]
    Short { at: usize, wanted: usize, end: usize },
}

/// Reads a parcel's data.
pub struct ParcelReader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> ParcelReader<'a> {
    pub fn new(parcel: &'a [u8]) -> Result<ParcelReader<'a>, ParcelError> {
        let word = |at: usize| parcel.get(at..at + 4).map(|w| u32::from_le_bytes(w.try_into().expect("four bytes")));
        let (Some(data_size), Some(data_offset)) = (word(0), word(4)) else {
            return Err(ParcelError::Short { at: 0, wanted: 16, end: parcel.len() });
        };
        let data = (data_offset as usize)
            .checked_add(data_size as usize)
            .and_then(|end| parcel.get(data_offset as usize..end))
            .ok_or(ParcelError::Header { data_offset, data_size, length: parcel.len() })?;
        Ok(ParcelReader { data, at: 0 })
    }

    pub fn bytes(&mut self, length: usize) -> Result<&'a [u8], ParcelError> {
        let short = ParcelError::Short { at: self.at, wanted: length, end: self.data.len() };
        let end = self.at.checked_add(length).ok_or(short)?;
        let bytes = self.data.get(self.at..end).ok_or(short)?;
        self.at = end.next_multiple_of(4).min(self.data.len().max(end));
        Ok(bytes)
    }

    pub fn u32(&mut self) -> Result<u32, ParcelError> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().expect("four bytes")))
    }

    pub fn i32(&mut self) -> Result<i32, ParcelError> {
        Ok(self.u32()? as i32)
    }

    /// The interface token: the strict-mode policy, then the interface's name as a String16 (length in UTF-16
    /// units, the units and a NUL).
    pub fn interface_token(&mut self) -> Result<String, ParcelError> {
        self.u32()?;
        let length = self.u32()? as usize;
        let units = self.bytes(length.saturating_add(1).saturating_mul(2))?;
        let text: Vec<u16> = units.chunks_exact(2).take(length).map(|u| u16::from_le_bytes([u[0], u[1]])).collect();
        Ok(String::from_utf16_lossy(&text))
    }

    /// A flattened object: its length, its file descriptor count (0 here), then its bytes.
    pub fn flattened(&mut self) -> Result<&'a [u8], ParcelError> {
        let length = self.u32()? as usize;
        self.u32()?;
        self.bytes(length)
    }
}

/// Builds a parcel's data; `finish` adds the header.
#[derive(Default)]
pub struct ParcelWriter {
    data: Vec<u8>,
}

impl ParcelWriter {
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
        self.data.resize(self.data.len().next_multiple_of(4), 0);
    }

    pub fn u32(&mut self, value: u32) {
        self.bytes(&value.to_le_bytes());
    }

    pub fn i32(&mut self, value: i32) {
        self.u32(value as u32);
    }

    pub fn flattened(&mut self, bytes: &[u8]) {
        self.u32(bytes.len() as u32);
        self.u32(0);
        self.bytes(bytes);
    }

    /// The parcel: header, data at 0x10, no objects.
    pub fn finish(self) -> Vec<u8> {
        let size = self.data.len() as u32;
        let mut parcel = Vec::with_capacity(16 + self.data.len());
        for word in [size, 0x10, 0, 0x10 + size] {
            parcel.extend_from_slice(&word.to_le_bytes());
        }
        parcel.extend_from_slice(&self.data);
        parcel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libnx's token for IGraphicBufferProducer takes 0x50 bytes: policy, length 34, 35 UTF-16 units, padding.
    #[test]
    fn an_interface_token_is_policy_length_and_utf16_with_its_nul() {
        let name = "android.gui.IGraphicBufferProducer";
        let mut writer = ParcelWriter::default();
        writer.u32(0x100);
        writer.u32(name.len() as u32);
        let units: Vec<u8> = name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        writer.bytes(&units);
        writer.i32(-7);
        let parcel = writer.finish();
        assert_eq!(parcel.len(), 16 + 0x50 + 4);
        let mut reader = ParcelReader::new(&parcel).unwrap();
        assert_eq!(reader.interface_token().unwrap(), name);
        assert_eq!(reader.i32().unwrap(), -7);
        assert!(matches!(reader.u32(), Err(ParcelError::Short { .. })));
    }

    #[test]
    fn headers_pointing_outside_the_parcel_are_refused() {
        let mut parcel = vec![0u8; 32];
        parcel[..4].copy_from_slice(&0x100u32.to_le_bytes());
        parcel[4..8].copy_from_slice(&0x10u32.to_le_bytes());
        assert!(matches!(ParcelReader::new(&parcel), Err(ParcelError::Header { .. })));
        parcel[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(ParcelReader::new(&parcel), Err(ParcelError::Header { .. })));
        assert!(matches!(ParcelReader::new(&parcel[..5]), Err(ParcelError::Short { .. })));
    }
}
