//! Save data on the host: one folder per save (`<save folder>/<program id>/<kind>[/<user id>]`), holding two
//! slots and a `current` file naming the committed one, plus the working copy the program writes to.
//!
//! Commit is atomic in the sense Horizon's journaled save data is: the working copy is written into the other
//! slot and fsynced, then `current` is replaced by writing `current.tmp`, fsyncing it and renaming it over
//! `current`. A crash before the rename leaves the old slot current; after it, the new one. Nothing else ever
//! writes a committed slot.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The saves open now: a save opens once at a time (a second open gets `ResourceBusy`, Horizon's TargetLocked).
pub type OpenSaves = Rc<RefCell<BTreeSet<PathBuf>>>;

const SLOTS: [&str; 2] = ["a", "b"];
const CURRENT: &str = "current";
const WORKING: &str = "working";

/// A save's folder: its slots, `current`, and the working copy while it is open.
#[derive(Debug)]
pub struct SaveData {
    folder: PathBuf,
    open_saves: OpenSaves,
}

impl Drop for SaveData {
    fn drop(&mut self) {
        self.open_saves.borrow_mut().remove(&self.folder);
    }
}

/// Where [`SaveData::commit_until`] stops, for tests that simulate a crash.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CommitStage {
    /// The new slot is written and synced; `current.tmp` is written; the rename has not happened.
    BeforeRename,
    Done,
}

impl SaveData {
    /// Makes an empty save (slot "a", committed).
    pub fn create(folder: &Path) -> io::Result<()> {
        fs::create_dir_all(folder.join(SLOTS[0]))?;
        write_atomically(&folder.join(CURRENT), SLOTS[0].as_bytes())
    }

    /// Opens the save at `folder` (which must exist): the working copy starts as the committed slot.
    pub fn open(folder: &Path, open_saves: &OpenSaves) -> io::Result<SaveData> {
        if !open_saves.borrow_mut().insert(folder.to_owned()) {
            return Err(io::Error::new(io::ErrorKind::ResourceBusy, format!("{} is open already", folder.display())));
        }
        let save = SaveData { folder: folder.to_owned(), open_saves: open_saves.clone() };
        let committed = save.committed_slot()?;
        let working = save.working();
        if working.exists() {
            fs::remove_dir_all(&working)?;
        }
        copy_tree(&folder.join(committed), &working)?;
        Ok(save)
    }

    /// The folder the program's file system works in.
    pub fn working(&self) -> PathBuf {
        self.folder.join(WORKING)
    }

    /// The committed slot's name; a save made before `current` was written has only slot "a".
    fn committed_slot(&self) -> io::Result<&'static str> {
        match fs::read(self.folder.join(CURRENT)) {
            Ok(name) => SLOTS.into_iter().find(|slot| slot.as_bytes() == name).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is damaged", self.folder.join(CURRENT).display()),
                )
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound && self.folder.join(SLOTS[0]).is_dir() => {
                Ok(SLOTS[0])
            }
            Err(error) => Err(error),
        }
    }

    /// Makes the working copy the committed state.
    pub fn commit(&self) -> io::Result<()> {
        self.commit_until(CommitStage::Done)
    }

    /// Commits up to `stage` (a test stops early to play a crash).
    pub fn commit_until(&self, stage: CommitStage) -> io::Result<()> {
        let committed = self.committed_slot()?;
        let next = SLOTS.into_iter().find(|&slot| slot != committed).expect("two slots");
        let next_folder = self.folder.join(next);
        if next_folder.exists() {
            fs::remove_dir_all(&next_folder)?;
        }
        copy_tree(&self.working(), &next_folder)?;
        let temporary = self.folder.join(format!("{CURRENT}.tmp"));
        let mut file = File::create(&temporary)?;
        file.write_all(next.as_bytes())?;
        file.sync_all()?;
        if stage == CommitStage::BeforeRename {
            return Ok(());
        }
        fs::rename(&temporary, self.folder.join(CURRENT))?;
        File::open(&self.folder)?.sync_all()
    }
}

/// Writes `path` through a synced temporary and a rename.
fn write_atomically(path: &Path, data: &[u8]) -> io::Result<()> {
    let temporary = path.with_extension("tmp");
    let mut file = File::create(&temporary)?;
    file.write_all(data)?;
    file.sync_all()?;
    fs::rename(&temporary, path)?;
    File::open(path.parent().unwrap_or(Path::new(".")))?.sync_all()
}

/// Copies the folder `from` to `to` (made here), files synced; symbolic links are not copied.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir(to)?;
    let mut entries: Vec<_> = fs::read_dir(from)?.collect::<io::Result<_>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target)?;
            File::open(&target)?.sync_all()?;
        }
    }
    File::open(to)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("tandem-save-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        folder
    }

    #[test]
    fn only_committed_changes_survive_a_reopen() {
        let folder = scratch("reopen");
        SaveData::create(&folder).unwrap();
        let save = SaveData::open(&folder, &OpenSaves::default()).unwrap();
        fs::write(save.working().join("progress"), b"level 1").unwrap();
        save.commit().unwrap();
        fs::write(save.working().join("progress"), b"level 2, not committed").unwrap();
        drop(save);
        let save = SaveData::open(&folder, &OpenSaves::default()).unwrap();
        assert_eq!(fs::read(save.working().join("progress")).unwrap(), b"level 1");
        fs::remove_dir_all(folder).unwrap();
    }

    /// A crash between writing the new slot and renaming `current` leaves the old save; a crash after leaves
    /// the new one. Never a mixture.
    #[test]
    fn a_crash_during_commit_leaves_the_old_or_the_new_save() {
        let folder = scratch("crash");
        SaveData::create(&folder).unwrap();
        let save = SaveData::open(&folder, &OpenSaves::default()).unwrap();
        fs::write(save.working().join("a"), b"old").unwrap();
        fs::write(save.working().join("b"), b"old").unwrap();
        save.commit().unwrap();

        fs::write(save.working().join("a"), b"new").unwrap();
        fs::remove_file(save.working().join("b")).unwrap();
        save.commit_until(CommitStage::BeforeRename).unwrap();
        drop(save); // the process dies here
        let reopened = SaveData::open(&folder, &OpenSaves::default()).unwrap();
        assert_eq!(
            SaveData::open(&folder, &reopened.open_saves).unwrap_err().kind(),
            io::ErrorKind::ResourceBusy,
            "a save opens once at a time"
        );
        assert_eq!(fs::read(reopened.working().join("a")).unwrap(), b"old");
        assert_eq!(fs::read(reopened.working().join("b")).unwrap(), b"old");

        fs::write(reopened.working().join("a"), b"new").unwrap();
        reopened.commit().unwrap();
        drop(reopened);
        let reopened = SaveData::open(&folder, &OpenSaves::default()).unwrap();
        assert_eq!(fs::read(reopened.working().join("a")).unwrap(), b"new");
        fs::remove_dir_all(folder).unwrap();
    }
}
