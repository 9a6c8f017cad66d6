//! Little-endian reading and writing shared by every loader.

use super::{LoadError, Magic, Problem};

/// A bounds-checked little-endian view of a file, or of a structure inside one. Every read that would leave the
/// bytes becomes a [`LoadError`] naming the file, the structure and the offset (as an offset in the whole file).
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    file: &'a str,
    bytes: &'a [u8],
    /// Offset of `bytes[0]` in the whole file.
    base: u64,
}

impl<'a> Reader<'a> {
    /// A reader over a whole file called `file`.
    pub(crate) fn new(file: &'a str, bytes: &'a [u8]) -> Self {
        Self { file, bytes, base: 0 }
    }

    /// A reader over `bytes`, which start at `base` in the file.
    pub(crate) fn with_base(file: &'a str, bytes: &'a [u8], base: u64) -> Self {
        Self { file, bytes, base }
    }

    /// The file's label, as errors name it.
    pub(crate) fn file(&self) -> &'a str {
        self.file
    }

    pub(crate) fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// An error in `structure` at `offset` (relative to this reader).
    pub(crate) fn error(&self, structure: &str, offset: u64, problem: Problem) -> LoadError {
        LoadError::at(self.file, structure, self.base.saturating_add(offset), problem)
    }

    /// `len` bytes at `offset`, part of a fixed-size `structure`: running out is [`Problem::Truncated`].
    pub(crate) fn bytes(&self, offset: u64, len: u64, structure: &str) -> Result<&'a [u8], LoadError> {
        self.slice(offset, len).ok_or_else(|| {
            let needed = self.base.saturating_add(offset).saturating_add(len);
            let available = self.base.saturating_add(self.len());
            self.error(structure, offset, Problem::Truncated { needed, available })
        })
    }

    /// The `size` bytes at `start` that a header field at `field` describes: running out is [`Problem::PastEnd`].
    pub(crate) fn extent(&self, field: u64, start: u64, size: u64, structure: &str) -> Result<&'a [u8], LoadError> {
        self.slice(start, size).ok_or_else(|| {
            let problem = Problem::PastEnd {
                start: self.base.saturating_add(start),
                size,
                end: self.base.saturating_add(self.len()),
            };
            self.error(structure, field, problem)
        })
    }

    /// A reader over the extent [`Reader::extent`] checks, keeping file offsets in its errors.
    pub(crate) fn sub(&self, field: u64, start: u64, size: u64, structure: &str) -> Result<Self, LoadError> {
        let bytes = self.extent(field, start, size, structure)?;
        Ok(Self::with_base(self.file, bytes, self.base.saturating_add(start)))
    }

    fn slice(&self, start: u64, len: u64) -> Option<&'a [u8]> {
        let start = usize::try_from(start).ok()?;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        self.bytes.get(start..end)
    }

    pub(crate) fn array<const N: usize>(&self, offset: u64, structure: &str) -> Result<[u8; N], LoadError> {
        let mut array = [0; N];
        array.copy_from_slice(self.bytes(offset, N as u64, structure)?);
        Ok(array)
    }

    pub(crate) fn u8(&self, offset: u64, structure: &str) -> Result<u8, LoadError> {
        Ok(self.array::<1>(offset, structure)?[0])
    }

    pub(crate) fn u16(&self, offset: u64, structure: &str) -> Result<u16, LoadError> {
        Ok(u16::from_le_bytes(self.array(offset, structure)?))
    }

    pub(crate) fn u32(&self, offset: u64, structure: &str) -> Result<u32, LoadError> {
        Ok(u32::from_le_bytes(self.array(offset, structure)?))
    }

    pub(crate) fn u64(&self, offset: u64, structure: &str) -> Result<u64, LoadError> {
        Ok(u64::from_le_bytes(self.array(offset, structure)?))
    }

    /// Checks the four-byte magic at `offset`.
    pub(crate) fn expect_magic(&self, offset: u64, expected: &[u8; 4], structure: &str) -> Result<(), LoadError> {
        let found = self.array(offset, structure)?;
        if &found != expected {
            return Err(self.error(
                structure,
                offset,
                Problem::BadMagic { expected: Magic(*expected), found: Magic(found) },
            ));
        }
        Ok(())
    }

    /// A NUL-padded UTF-8 string in a field of `len` bytes.
    pub(crate) fn padded_str(&self, offset: u64, len: u64, structure: &str) -> Result<String, LoadError> {
        let field = self.bytes(offset, len, structure)?;
        let text = field.split(|&byte| byte == 0).next().unwrap_or_default();
        String::from_utf8(text.to_vec()).map_err(|_| self.error(structure, offset, Problem::NotUtf8))
    }
}

/// Builds a little-endian file front to back.
#[derive(Default)]
pub(crate) struct ByteWriter {
    bytes: Vec<u8>,
}

impl ByteWriter {
    pub(crate) fn position(&self) -> usize {
        self.bytes.len()
    }

    pub(crate) fn u8(&mut self, value: u8) -> &mut Self {
        self.bytes(&[value])
    }

    pub(crate) fn u32(&mut self, value: u32) -> &mut Self {
        self.bytes(&value.to_le_bytes())
    }

    pub(crate) fn u64(&mut self, value: u64) -> &mut Self {
        self.bytes(&value.to_le_bytes())
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// `bytes`, then zeros up to `len` in all (cut to `len` if longer).
    pub(crate) fn padded(&mut self, bytes: &[u8], len: usize) -> &mut Self {
        let start = self.position();
        self.bytes(&bytes[..bytes.len().min(len)]).pad_to(start + len)
    }

    /// Zeros up to `position` (nothing if already there or past it).
    pub(crate) fn pad_to(&mut self, position: usize) -> &mut Self {
        if position > self.bytes.len() {
            self.bytes.resize(position, 0);
        }
        self
    }

    /// Zeros up to the next multiple of `alignment`.
    pub(crate) fn align(&mut self, alignment: usize) -> &mut Self {
        self.pad_to(self.position().next_multiple_of(alignment))
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}
