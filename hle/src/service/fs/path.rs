//! Paths as the file system service receives them: NUL-terminated in a 0x301-byte pointer buffer, absolute,
//! '/'-separated. Normalised as Horizon's path formatter does (empty and "." components dropped, ".." taken back)
//! and refused where it refuses: a path must not climb above its root, so nothing a program names can reach a
//! host file outside the file system's folder.

use super::results;
use crate::ipc::ResultCode;

/// The path buffer's size: 0x300 characters and the NUL.
pub const PATH_BUFFER_SIZE: usize = 0x301;
/// Characters Horizon's path formatter refuses.
const INVALID_CHARACTERS: &[u8] = b":*?<>|";

/// The normalised components of the path in `buffer` (the root is none).
pub fn normalize(buffer: &[u8]) -> Result<Vec<String>, ResultCode> {
    let length = buffer.iter().position(|&b| b == 0).ok_or(results::TOO_LONG_PATH)?;
    let path = &buffer[..length];
    if path.first() != Some(&b'/') {
        return Err(results::INVALID_PATH_FORMAT);
    }
    if path.iter().any(|b| INVALID_CHARACTERS.contains(b)) {
        return Err(results::INVALID_CHARACTER);
    }
    let mut components: Vec<String> = Vec::new();
    for component in path.split(|&b| b == b'/') {
        match component {
            b"" | b"." => {}
            b".." => {
                components.pop().ok_or(results::DIRECTORY_UNOBTAINABLE)?;
            }
            name => components.push(String::from_utf8(name.to_vec()).map_err(|_| results::INVALID_CHARACTER)?),
        }
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> Result<Vec<String>, ResultCode> {
        let mut buffer = text.as_bytes().to_vec();
        buffer.push(0);
        normalize(&buffer)
    }

    #[test]
    fn paths_normalise_inside_their_root() {
        assert_eq!(path("/"), Ok(vec![]));
        assert_eq!(path("/a//b/./c/"), Ok(vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!(path("/a/b/../c"), Ok(vec!["a".into(), "c".into()]));
    }

    #[test]
    fn escapes_and_malformed_paths_are_refused_with_horizons_results() {
        assert_eq!(path("/.."), Err(results::DIRECTORY_UNOBTAINABLE));
        assert_eq!(path("/a/../../etc/passwd"), Err(results::DIRECTORY_UNOBTAINABLE));
        assert_eq!(path("a/b"), Err(results::INVALID_PATH_FORMAT));
        assert_eq!(path(""), Err(results::INVALID_PATH_FORMAT));
        assert_eq!(path("/c:/x"), Err(results::INVALID_CHARACTER));
        assert_eq!(normalize(&[b'/'; PATH_BUFFER_SIZE]), Err(results::TOO_LONG_PATH));
    }
}
