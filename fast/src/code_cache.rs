//! The persistent code cache: compiled blocks on disk, content-addressed.
//!
//! A block's key is SHA-256 over: the lifter's fingerprint (its sources and the reference's, the decode table and
//! every locked dependency, see build.rs), the host code generator's target and flags, the block limit, the block's guest
//! address and the SHA-256 of its page's bytes. A game update or a new lifter thus misses only the blocks of the
//! pages it changes. A region that also holds instructions of other pages (`lift::region`) lists them with their
//! digests in its file, and is loaded only while they still hold those bytes and may still be compiled. A page's
//! digest is computed once while the page stays unchanged (`forget_pages` drops it), not once per block. No key
//! names the FP mode: compiled code reads FPCR at run time where its result depends on it.
//!
//! One file per block (`xx/xxxx…` by key), written to a temporary name and renamed, so a reader never sees half
//! a file; a block compiled again over a stale one replaces it. The `index` file lists the keys stored, so that
//! asking for a block the cache does not hold (most addresses a run asks about never were compiled) costs no
//! look-up in the folder: each store appends its key, a prune rewrites it from the files it keeps, and a cache
//! without a sound one (never indexed, or cut short mid-append) is indexed afresh from its files when opened.
//! The index only steers: a key it lists whose file is gone is compiled again, one it lost is compiled and
//! listed again. A file is trusted only if its magic, format, key and SHA-256 checksum all match; anything else is
//! logged, deleted and compiled afresh.
//!
//! The cache is bounded: `prune` removes the least recently used files (a load renews a file's modification
//! time) until the rest fit the limit, which keeps what the current lifter uses and drops what older lifters
//! and other programs left. It touches only names of the cache's own layout, in case the folder is not the
//! cache's alone.

use crate::lift::compilable;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};
use tandem_reference::memory::{GuestMemory, PAGE_SIZE};

const MAGIC: &[u8; 8] = b"TNDMBLK3";
const HEADER: usize = MAGIC.len() + 32 + 4 + 4;

/// A block as the cache holds it.
pub struct CachedBlock {
    pub instructions: u32,
    pub code: Vec<u8>,
    /// Host offsets of its guest accesses that may fault (`fault`).
    pub sites: Vec<u32>,
    /// The pages other than its start's that it holds instructions of.
    pub other_pages: Vec<u64>,
}

/// A page the block was compiled from, and the SHA-256 of its bytes then.
type PageDigest = (u64, [u8; 32]);

pub type Key = [u8; 32];

pub struct CodeCache {
    dir: PathBuf,
    /// What every key starts from: the lifter and the host code generator.
    fingerprint: [u8; 32],
    /// The SHA-256 of each page blocks were keyed from, by page address, until the page changes.
    page_digests: HashMap<u64, [u8; 32]>,
    /// The keys the index listed when the cache was opened, and those stored since.
    stored: HashSet<Key>,
}

impl CodeCache {
    /// A cache in `dir` (created if missing, readable by its owner alone: it holds native code this process
    /// runs) for code the given code generator makes.
    ///
    /// Invariant: the cache is used only from a folder this user owns that no one else may write to (checked
    /// through any symbolic link), since a block's checksum proves it intact, not who wrote it: a folder that
    /// already existed with other owners or write bits is refused.
    pub fn open(dir: &Path, isa: &dyn cranelift_codegen::isa::TargetIsa) -> std::io::Result<CodeCache> {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let metadata = std::fs::metadata(dir)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let user = unsafe { libc::geteuid() };
        if metadata.uid() != user || metadata.mode() & 0o022 != 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "owned by uid {} with mode {:o}: a code cache must be this user's (uid {user}) and writable by no one \
                     else, as it holds native code Tandem runs",
                    metadata.uid(),
                    metadata.mode() & 0o7777
                ),
            ));
        }
        let mut hasher = Sha256::new();
        hasher.update(env!("TANDEM_LIFTER_FINGERPRINT"));
        hasher.update(isa.triple().to_string());
        for flag in isa.isa_flags() {
            hasher.update(flag.to_string());
        }
        hasher.update(isa.flags().to_string());
        let stored = match read_index(dir) {
            Some(stored) => stored,
            None => write_index(dir, block_files(dir)?.into_iter().map(|file| file.key))?,
        };
        Ok(CodeCache {
            dir: dir.to_path_buf(),
            fingerprint: hasher.finalize().into(),
            page_digests: HashMap::new(),
            stored,
        })
    }

    /// Where the cache lives unless told otherwise: `$TANDEM_CODE_CACHE`, else `~/.cache/tandem/code`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("TANDEM_CODE_CACHE") {
            return Some(PathBuf::from(dir));
        }
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/tandem/code"))
    }

    /// The key of the block of at most `limit` instructions at `pc`.
    pub fn key(&mut self, memory: &GuestMemory, pc: u64, limit: u32, graphs: bool) -> Key {
        let page_digest = self.page_digest(memory, pc & !(PAGE_SIZE - 1));
        let mut hasher = Sha256::new();
        hasher.update(self.fingerprint);
        hasher.update(limit.to_le_bytes());
        hasher.update([u8::from(graphs)]);
        hasher.update(pc.to_le_bytes());
        hasher.update(page_digest);
        hasher.finalize().into()
    }

    fn page_digest(&mut self, memory: &GuestMemory, page: u64) -> [u8; 32] {
        *self.page_digests.entry(page).or_insert_with(|| {
            let mut bytes = vec![0; PAGE_SIZE as usize];
            // The page is mapped (the engine compiles only from mapped executable pages); if not, the zeros still
            // make a digest, and the block lifted from that memory will fail its own fetch.
            let _ = memory.read_privileged(page, &mut bytes);
            Sha256::digest(&bytes).into()
        })
    }

    /// Forgets the digests of the pages in `pages` (page aligned), whose bytes may have changed.
    pub fn forget_pages(&mut self, pages: std::ops::Range<u64>) {
        self.page_digests.retain(|page, _| !pages.contains(page));
    }

    fn path(&self, key: &Key) -> PathBuf {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let hex: String = key
            .iter()
            .flat_map(|byte| [DIGITS[usize::from(byte >> 4)], DIGITS[usize::from(byte & 15)]])
            .map(char::from)
            .collect();
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// Whether the index lists `key` (`load` checks the file).
    pub fn holds(&self, key: &Key) -> bool {
        self.stored.contains(key)
    }

    /// The block stored under `key`, if a sound file holds it and the other pages it was compiled from still hold
    /// what they held then and may still be compiled.
    pub fn load(&mut self, key: &Key, memory: &GuestMemory) -> Option<CachedBlock> {
        let path = self.path(key);
        let mut file = File::open(&path).ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        let (block, pages) = match parse(&bytes, key) {
            Ok(parsed) => parsed,
            Err(why) => {
                tracing::warn!(file = %path.display(), "code cache: {why}; compiling the block again");
                let _ = std::fs::remove_file(&path);
                return None;
            }
        };
        let unchanged = |cache: &mut CodeCache, &(page, digest): &PageDigest| {
            compilable(memory, page) && cache.page_digest(memory, page) == digest
        };
        let sound = pages.iter().all(|page| unchanged(self, page));
        if sound {
            // Recently used: the last files `prune` removes. Renewed once a prune interval at most, the order
            // `prune` needs (a large program loads thousands of blocks at each start).
            let now = SystemTime::now();
            let modified = file.metadata().and_then(|metadata| metadata.modified());
            if modified.is_ok_and(|modified| now.duration_since(modified).is_ok_and(|age| age >= PRUNE_INTERVAL)) {
                let _ = file.set_modified(now);
            }
        }
        sound.then_some(block)
    }

    /// Stores a block compiled from `memory` (its start's page, and `other_pages` as they hold now).
    pub fn store(&mut self, memory: &GuestMemory, key: &Key, block: &CachedBlock) -> std::io::Result<()> {
        self.ticket(memory, key, &block.other_pages).store(block.instructions, &block.code, &block.sites)
    }

    /// What storing the block of `key` that holds instructions of `other_pages` needs from the cache and from
    /// `memory` as it holds now, for `StoreTicket::store` on any thread.
    pub fn ticket(&mut self, memory: &GuestMemory, key: &Key, other_pages: &[u64]) -> StoreTicket {
        let pages = other_pages.iter().map(|&page| (page, self.page_digest(memory, page))).collect();
        self.stored.insert(*key);
        StoreTicket { path: self.path(key), index: self.dir.join(INDEX), key: *key, pages }
    }
}

/// Where a block's file goes and the digests of the other pages it holds, taken when it was lifted: a compile
/// thread stores the block with it (its file describes the bytes it was compiled from, whatever memory holds
/// by then).
pub struct StoreTicket {
    path: PathBuf,
    index: PathBuf,
    key: Key,
    pages: Vec<PageDigest>,
}

impl StoreTicket {
    /// Stores a block of `instructions` guest instructions compiled to `code`, with its guest accesses' `sites`.
    pub fn store(&self, instructions: u32, code: &[u8], sites: &[u32]) -> std::io::Result<()> {
        let bytes = file_bytes(&self.key, instructions, code, sites, &self.pages);
        let dir = self.path.parent().expect("cache paths have a parent");
        std::fs::create_dir_all(dir)?;
        let name = self.path.file_name().expect("cache paths name a file").to_string_lossy();
        // A name no other writer uses (threads of this process, or a process of the same number in another
        // container sharing the folder, which `create_new` refuses): two writers never share a temporary file.
        static STORES: AtomicU64 = AtomicU64::new(0);
        let store = STORES.fetch_add(1, Ordering::Relaxed);
        let temporary = dir.join(format!(".{}.{store}.{name}", std::process::id()));
        std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?.write_all(&bytes)?;
        std::fs::rename(&temporary, &self.path)?;
        // One write of a whole entry: appends of other processes go before or after it, not into it.
        std::fs::OpenOptions::new().append(true).create(true).open(&self.index)?.write_all(&self.key)
    }
}

/// The file listing the stored keys, 32 bytes each.
const INDEX: &str = "index";

/// The keys the index of the cache in `dir` lists; `None` when it has none, or one cut short.
fn read_index(dir: &Path) -> Option<HashSet<Key>> {
    let bytes = std::fs::read(dir.join(INDEX)).ok()?;
    if bytes.len() % 32 != 0 {
        tracing::warn!(dir = %dir.display(), "code cache: the index was cut short; indexing the files afresh");
        return None;
    }
    Some(bytes.chunks_exact(32).map(|key| key.try_into().expect("32 bytes")).collect())
}

/// Makes `keys` the index of the cache in `dir` (written whole and renamed into place), and returns them.
fn write_index(dir: &Path, keys: impl IntoIterator<Item = Key>) -> std::io::Result<HashSet<Key>> {
    let keys: HashSet<Key> = keys.into_iter().collect();
    let temporary = dir.join(format!(".{}.{INDEX}", std::process::id()));
    std::fs::write(&temporary, keys.iter().flatten().copied().collect::<Vec<u8>>())?;
    std::fs::rename(&temporary, dir.join(INDEX))?;
    Ok(keys)
}

/// The most bytes a cache keeps unless `TANDEM_CODE_CACHE_MAX_MB` says otherwise: room for ahead-of-time
/// compiled games (a block file is ~5 KiB).
const DEFAULT_LIMIT_MB: u64 = 4096;

/// How long after a prune the next is due (`prune_if_due`), and after which a temporary file is a dead writer's.
const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// The file in the cache's folder whose modification time is that of the last prune.
const PRUNE_STAMP: &str = "pruned";

/// What `prune` found and removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub kept_files: u64,
    pub kept_bytes: u64,
    pub removed_files: u64,
    pub removed_bytes: u64,
}

/// The most bytes the cache should hold: `$TANDEM_CODE_CACHE_MAX_MB` mebibytes, else 4 GiB.
pub fn size_limit() -> Result<u64, String> {
    match std::env::var("TANDEM_CODE_CACHE_MAX_MB") {
        Err(_) => Ok(DEFAULT_LIMIT_MB << 20),
        Ok(value) => value.trim().parse::<u64>().map(|mb| mb.saturating_mul(1 << 20)).map_err(|_| {
            format!("TANDEM_CODE_CACHE_MAX_MB is {value:?}: give the code cache's size limit in mebibytes, e.g. 4096")
        }),
    }
}

/// Prunes the cache in `dir` on a thread of its own when a prune is due (`prune_if_due`): the run goes on
/// meanwhile (a file removed under a concurrent load is only compiled again). Join the thread before the process
/// ends, or the prune is cut short, to be done again at the next start.
pub fn prune_in_background(dir: PathBuf, limit: u64) -> Option<std::thread::JoinHandle<()>> {
    let spawned = std::thread::Builder::new().name("code-cache-prune".into()).spawn(move || {
        match prune_if_due(&dir, limit, SystemTime::now()) {
            Ok(Some(pruned)) if pruned.removed_files > 0 => tracing::info!(
                dir = %dir.display(),
                "code cache: removed the {} least recently used files ({} MiB) to keep it under {} MiB",
                pruned.removed_files,
                pruned.removed_bytes >> 20,
                limit >> 20
            ),
            Ok(_) => {}
            Err(error) => tracing::warn!(dir = %dir.display(), "code cache: pruning failed: {error}"),
        }
    });
    spawned.inspect_err(|error| tracing::warn!("code cache: no thread to prune it: {error}")).ok()
}

/// Prunes the cache in `dir` to `limit` bytes when the last prune was `PRUNE_INTERVAL` before `now` or longer
/// (or never was); `None` when none was due.
pub fn prune_if_due(dir: &Path, limit: u64, now: SystemTime) -> std::io::Result<Option<Pruned>> {
    let stamp = dir.join(PRUNE_STAMP);
    let last = std::fs::metadata(&stamp).and_then(|metadata| metadata.modified()).ok();
    if last.is_some_and(|last| now.duration_since(last).is_ok_and(|since| since < PRUNE_INTERVAL)) {
        return Ok(None);
    }
    let pruned = prune(dir, limit, now)?;
    std::fs::write(&stamp, b"")?;
    std::fs::File::open(&stamp)?.set_modified(now)?;
    Ok(Some(pruned))
}

/// Removes the least recently modified block files of the cache in `dir` until those left take at most `limit`
/// bytes of the disk, and the temporary files of writers that stopped (`PRUNE_INTERVAL` old before `now`). Other names are
/// left alone.
pub fn prune(dir: &Path, limit: u64, now: SystemTime) -> std::io::Result<Pruned> {
    let mut pruned = Pruned::default();
    // Indexes whose writer stopped before renaming them into place.
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let metadata = entry.metadata()?;
        let stale = now.duration_since(metadata.modified()?).is_ok_and(|age| age >= PRUNE_INTERVAL);
        if stale && metadata.is_file() && written_by_a_writer(&entry.file_name().to_string_lossy()) == Some(INDEX) {
            remove(&entry.path(), metadata.blocks() * 512, &mut pruned)?;
        }
    }
    let mut files = Vec::new();
    for file in block_files(dir)? {
        if !file.temporary {
            files.push(file);
        } else if now.duration_since(file.modified).is_ok_and(|age| age >= PRUNE_INTERVAL) {
            remove(&file.path, file.length, &mut pruned)?;
        }
    }
    files.sort_by_key(|file| file.modified);
    let mut total: u64 = files.iter().map(|file| file.length).sum();
    let mut kept = Vec::new();
    for file in files {
        if total <= limit {
            pruned.kept_files += 1;
            pruned.kept_bytes += file.length;
            kept.push(file.key);
        } else {
            remove(&file.path, file.length, &mut pruned)?;
            total -= file.length;
        }
    }
    write_index(dir, kept)?;
    Ok(pruned)
}

/// A block file of the cache's layout, or a writer's temporary one.
struct BlockFile {
    path: PathBuf,
    key: Key,
    modified: SystemTime,
    /// What it takes on the disk, whole blocks.
    length: u64,
    temporary: bool,
}

/// The block files and temporary files in the cache in `dir`; names not of its layout are not listed.
fn block_files(dir: &Path) -> std::io::Result<Vec<BlockFile>> {
    let mut files = Vec::new();
    for subdir in std::fs::read_dir(dir)? {
        let subdir = subdir?;
        let prefix = subdir.file_name().to_string_lossy().into_owned();
        if prefix.len() != 2 || !subdir.file_type()?.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(subdir.path())? {
            let file = file?;
            let name = file.file_name().to_string_lossy().into_owned();
            let written = written_by_a_writer(&name);
            let temporary = written.is_some();
            let Some(key) = key_from_hex(&format!("{prefix}{}", written.unwrap_or(&name))) else {
                continue;
            };
            let metadata = file.metadata()?;
            if !metadata.is_file() {
                continue;
            }
            let (modified, length) = (metadata.modified()?, metadata.blocks() * 512);
            files.push(BlockFile { path: file.path(), key, modified, length, temporary });
        }
    }
    Ok(files)
}

/// The name a writer's temporary file `.PID.NAME` stands for, before the rename: NAME.
fn written_by_a_writer(name: &str) -> Option<&str> {
    let (pid, name) = name.strip_prefix('.')?.split_once('.')?;
    (!pid.is_empty() && pid.bytes().all(|byte| byte.is_ascii_digit())).then_some(name)
}

/// The key that 64 lowercase hex digits spell, as `CodeCache::path` names files.
fn key_from_hex(hex: &str) -> Option<Key> {
    let nibble = |digit: u8| match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    };
    let hex = hex.as_bytes();
    let mut key = [0u8; 32];
    if hex.len() != 64 {
        return None;
    }
    for (byte, pair) in key.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(key)
}

fn remove(path: &Path, length: u64, pruned: &mut Pruned) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        // Another process removed or replaced it first.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
        Ok(()) => {
            pruned.removed_files += 1;
            pruned.removed_bytes += length;
            Ok(())
        }
    }
}

/// A cache file: header (magic, key, instruction count, code length), code, the count and host offsets of the
/// guest accesses, the count of other pages and each one's address and digest, SHA-256 of all that.
fn file_bytes(key: &Key, instructions: u32, code: &[u8], sites: &[u32], pages: &[PageDigest]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER + code.len() + 8 + 4 * sites.len() + 40 * pages.len() + 32);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&instructions.to_le_bytes());
    bytes.extend_from_slice(&(code.len() as u32).to_le_bytes());
    bytes.extend_from_slice(code);
    bytes.extend_from_slice(&(sites.len() as u32).to_le_bytes());
    for site in sites {
        bytes.extend_from_slice(&site.to_le_bytes());
    }
    bytes.extend_from_slice(&(pages.len() as u32).to_le_bytes());
    for (page, digest) in pages {
        bytes.extend_from_slice(&page.to_le_bytes());
        bytes.extend_from_slice(digest);
    }
    let checksum: [u8; 32] = Sha256::digest(&bytes).into();
    bytes.extend_from_slice(&checksum);
    bytes
}

/// Checks a cache file; `Err` says what is wrong with it.
fn parse(bytes: &[u8], key: &Key) -> Result<(CachedBlock, Vec<PageDigest>), &'static str> {
    if bytes.len() < HEADER + 32 {
        return Err("the file is truncated");
    }
    let (body, checksum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(body).as_slice() != checksum {
        return Err("the checksum does not match (a damaged file)");
    }
    if &body[..8] != MAGIC {
        return Err("not a Tandem code cache file of this format");
    }
    if &body[8..40] != key {
        return Err("the file holds another block");
    }
    let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
    let instructions = word(40);
    let length = word(44) as usize;
    let sites_at = HEADER + length;
    if body.len() < sites_at + 4 || instructions == 0 {
        return Err("the lengths do not match");
    }
    let count = word(sites_at) as usize;
    let pages_at = sites_at + 4 + 4 * count;
    if body.len() < pages_at + 4 {
        return Err("the lengths do not match");
    }
    let page_count = word(pages_at) as usize;
    if body.len() != pages_at + 4 + 40 * page_count {
        return Err("the lengths do not match");
    }
    let sites = (0..count).map(|index| word(sites_at + 4 + 4 * index)).collect();
    let pages: Vec<PageDigest> = body[pages_at + 4..]
        .chunks_exact(40)
        .map(|entry| {
            let (page, digest) = entry.split_at(8);
            (u64::from_le_bytes(page.try_into().expect("8 bytes")), digest.try_into().expect("32 bytes"))
        })
        .collect();
    let other_pages = pages.iter().map(|&(page, _)| page).collect();
    Ok((CachedBlock { instructions, code: body[HEADER..sites_at].to_vec(), sites, other_pages }, pages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_reference::memory::Perm;

    /// A fresh cache folder (mode 0700, whatever the umask).
    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tandem-code-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).unwrap();
        dir
    }

    fn file(dir: &Path, name: &str, length: usize, modified: SystemTime) {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, vec![0u8; length]).unwrap();
        std::fs::File::open(&path).unwrap().set_modified(modified).unwrap();
    }

    /// The least recently used block files go first, down to the limit; temporary files of dead writers go,
    /// a live writer's stays; names not of the cache's layout stay whatever their age.
    #[test]
    fn pruning_removes_the_least_recently_used_files_and_nothing_else() {
        let dir = scratch_dir("prune");
        let now = SystemTime::now();
        let hours_ago = |hours: u64| now - Duration::from_secs(3600 * hours);
        let key = |digit: char| digit.to_string().repeat(62);
        file(&dir, &format!("ab/{}", key('1')), 100, hours_ago(5));
        file(&dir, &format!("ab/{}", key('2')), 100, hours_ago(4));
        file(&dir, &format!("cd/{}", key('3')), 100, hours_ago(3));
        file(&dir, &format!("cd/{}", key('4')), 100, hours_ago(1));
        file(&dir, &format!("cd/.123.{}", key('5')), 30, hours_ago(2));
        file(&dir, &format!("cd/.456.{}", key('6')), 30, now);
        file(&dir, ".123.index", 64, hours_ago(2));
        file(&dir, ".456.index", 64, now);
        let foreign = ["ab/notes.txt", "zz/0000", "README", &format!("ab/{}", key('A'))];
        for name in foreign {
            file(&dir, name, 1000, hours_ago(9));
        }
        let taken = |name: String| std::fs::metadata(dir.join(name)).unwrap().blocks() * 512;
        let kept_bytes = taken(format!("cd/{}", key('3'))) + taken(format!("cd/{}", key('4')));
        let removed_bytes = taken(format!("ab/{}", key('1')))
            + taken(format!("ab/{}", key('2')))
            + taken(format!("cd/.123.{}", key('5')))
            + taken(".123.index".into());
        let pruned = prune(&dir, kept_bytes, now).unwrap();
        assert_eq!(pruned, Pruned { kept_files: 2, kept_bytes, removed_files: 4, removed_bytes });
        let exists = |name: String| dir.join(name).exists();
        assert!(!exists(format!("ab/{}", key('1'))) && !exists(format!("ab/{}", key('2'))));
        assert!(exists(format!("cd/{}", key('3'))) && exists(format!("cd/{}", key('4'))));
        assert!(!exists(format!("cd/.123.{}", key('5'))) && exists(format!("cd/.456.{}", key('6'))));
        assert!(!exists(".123.index".into()) && exists(".456.index".into()));
        assert!(foreign.iter().all(|name| exists(name.to_string())));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_prune_is_due_an_interval_after_the_last() {
        let dir = scratch_dir("due");
        let now = SystemTime::now();
        file(&dir, &format!("ab/{}", "7".repeat(62)), 100, now);
        assert_eq!(prune_if_due(&dir, 0, now).unwrap().map(|pruned| pruned.removed_files), Some(1));
        assert_eq!(prune_if_due(&dir, 0, now + Duration::from_secs(600)).unwrap(), None);
        assert!(prune_if_due(&dir, 0, now + PRUNE_INTERVAL).unwrap().is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A load makes its file the most recently used, unless it was renewed within a prune interval already.
    /// A folder others may write to (or that another user owns) is refused: its files could be anyone's code.
    #[test]
    fn a_folder_others_may_write_to_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch_dir("shared");
        let isa = crate::host_isa().unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = CodeCache::open(&dir, &*isa).err().expect("a world-writable folder is refused");
        assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied, "{error}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(CodeCache::open(&dir, &*isa).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn loading_a_block_renews_its_file() {
        let dir = scratch_dir("renew");
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, PAGE_SIZE, Perm::RX).unwrap();
        let isa = crate::host_isa().unwrap();
        let mut cache = CodeCache::open(&dir, &*isa).unwrap();
        let key = cache.key(&memory, 0x10000, 64, true);
        let block = CachedBlock { instructions: 1, code: vec![0xc3], sites: vec![], other_pages: vec![] };
        cache.store(&memory, &key, &block).unwrap();
        let long_ago = SystemTime::now() - Duration::from_secs(86_400);
        std::fs::File::open(cache.path(&key)).unwrap().set_modified(long_ago).unwrap();
        assert!(cache.load(&key, &memory).is_some());
        let modified = std::fs::metadata(cache.path(&key)).unwrap().modified().unwrap();
        assert!(modified > long_ago + Duration::from_secs(3600), "the load left the file's time as it was");
        let lately = SystemTime::now() - PRUNE_INTERVAL / 6;
        std::fs::File::open(cache.path(&key)).unwrap().set_modified(lately).unwrap();
        assert!(cache.load(&key, &memory).is_some());
        let modified = std::fs::metadata(cache.path(&key)).unwrap().modified().unwrap();
        assert_eq!(modified, lately, "a file renewed lately was written again");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Stores list their keys in the index; a cache whose index is missing or cut short lists its files again;
    /// a prune lists what it kept.
    #[test]
    fn the_index_lists_the_blocks_stored() {
        let dir = scratch_dir("index");
        let mut memory = GuestMemory::new().unwrap();
        memory.map(0x10000, 2 * PAGE_SIZE, Perm::RX).unwrap();
        let isa = crate::host_isa().unwrap();
        let mut cache = CodeCache::open(&dir, &*isa).unwrap();
        let (first, second) = (cache.key(&memory, 0x10000, 64, true), cache.key(&memory, 0x11000, 64, true));
        assert!(!cache.holds(&first));
        let block = CachedBlock { instructions: 1, code: vec![0xc3], sites: vec![], other_pages: vec![] };
        cache.store(&memory, &first, &block).unwrap();
        let holds = |key: &Key| CodeCache::open(&dir, &*isa).unwrap().holds(key);
        assert!(cache.holds(&first) && holds(&first) && !holds(&second));
        assert_eq!(std::fs::read(dir.join(INDEX)).unwrap(), first);

        cache.store(&memory, &second, &block).unwrap();
        std::fs::remove_file(dir.join(INDEX)).unwrap();
        assert!(holds(&first) && holds(&second), "a missing index is rebuilt from the files");
        let mut index = std::fs::OpenOptions::new().append(true).open(dir.join(INDEX)).unwrap();
        index.write_all(&[0xee; 20]).unwrap();
        std::fs::remove_file(cache.path(&second)).unwrap();
        assert!(holds(&first) && !holds(&second), "an index cut short is rebuilt from the files");

        let renewed = SystemTime::now() + Duration::from_secs(60);
        cache.store(&memory, &second, &block).unwrap();
        std::fs::File::open(cache.path(&second)).unwrap().set_modified(renewed).unwrap();
        let one_file = std::fs::metadata(cache.path(&second)).unwrap().blocks() * 512;
        let pruned = prune(&dir, one_file, renewed).unwrap();
        assert_eq!((pruned.kept_files, pruned.removed_files), (1, 1));
        assert!(!holds(&first) && holds(&second), "the prune left the index listing what it removed");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn damaged_files_are_refused() {
        let key = [7u8; 32];
        let block = CachedBlock {
            instructions: 3,
            code: vec![0xc3, 0x90, 0x90, 0x90],
            sites: vec![1, 3],
            other_pages: vec![0x5000],
        };
        let bytes = file_bytes(&key, block.instructions, &block.code, &block.sites, &[(0x5000, [9; 32])]);
        let (parsed, pages) = parse(&bytes, &key).unwrap();
        assert_eq!((parsed.instructions, &parsed.code, &parsed.sites), (3, &block.code, &block.sites));
        assert_eq!((parsed.other_pages, pages), (vec![0x5000], vec![(0x5000, [9; 32])]));
        assert_eq!(parse(&bytes, &[8u8; 32]).err(), Some("the file holds another block"));
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(parse(&damaged, &key).is_err(), "a flipped bit at {at} went unnoticed");
        }
        for length in 0..bytes.len() {
            assert!(parse(&bytes[..length], &key).is_err(), "a file cut at {length} went unnoticed");
        }
    }
}
