//! The files a receiver creates beside its destination (part file, resume
//! record, the output itself), made so that nothing planted in a shared
//! directory can redirect them (issue 34 item 4).
//!
//! Every name is resolved relative to the destination's directory, opened
//! once ([`Dir`]), never through a path again; a final component that is a
//! symbolic link is refused (`O_NOFOLLOW`), new files are created
//! exclusively (`O_CREAT | O_EXCL`, which also refuses a dangling link),
//! files reopened from an earlier run must be regular files with one link,
//! and files are put in place by `renameat` (which replaces a name, never
//! what a link there points to), without replacing an existing output
//! unless asked (`renameat2(RENAME_NOREPLACE)`).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};

/// An opened directory: the files in it are created and renamed relative
/// to it.
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// What a name in a [`Dir`] is, without following a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Missing,
    Regular,
    Directory,
    Other(&'static str),
}

fn kind_name(t: FileType) -> &'static str {
    match t {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "not a regular file",
    }
}

impl Dir {
    /// Opens `path` as a directory.
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        let fd = rustix::fs::openat(
            rustix::fs::CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// `name`'s path, for messages.
    pub(crate) fn join(&self, name: &OsStr) -> PathBuf {
        self.path.join(name)
    }

    /// What `name` is (a link is not followed).
    pub(crate) fn kind(&self, name: &OsStr) -> io::Result<Kind> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Kind::Regular,
                FileType::Directory => Kind::Directory,
                t => Kind::Other(kind_name(t)),
            }),
            Err(rustix::io::Errno::NOENT) => Ok(Kind::Missing),
            Err(e) => Err(e.into()),
        }
    }

    /// Creates `name`, which must not exist (not even as a dangling link),
    /// for reading and writing, mode 0600.
    pub(crate) fn create_new(&self, name: &OsStr) -> io::Result<File> {
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        Ok(File::from(fd))
    }

    /// Opens `name` for reading and writing, creating it (mode 0600) if it
    /// does not exist; refuses a link, and anything but a regular file
    /// with a single link (a hard link planted to another file).
    pub(crate) fn open_or_create(&self, name: &OsStr) -> io::Result<File> {
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| {
            if e == rustix::io::Errno::LOOP {
                io::Error::other("a symbolic link: refused")
            } else {
                e.into()
            }
        })?;
        check_regular(&fd)?;
        // (Back to blocking I/O: O_NONBLOCK only kept a FIFO from
        // blocking the open.)
        rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
        Ok(File::from(fd))
    }

    /// Reads `name` (at most `max` bytes) if it is a regular file with a
    /// single link; `None` if it is missing, anything else or unreadable.
    pub(crate) fn read_small(&self, name: &OsStr, max: u64) -> Option<String> {
        use std::io::Read;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .ok()?;
        check_regular(&fd).ok()?;
        let mut s = String::new();
        File::from(fd).take(max).read_to_string(&mut s).ok()?;
        Some(s)
    }

    /// Renames `from` to `to` within the directory; with `replace` false an
    /// existing `to` is an error (`AlreadyExists`).
    pub(crate) fn rename(&self, from: &OsStr, to: &OsStr, replace: bool) -> io::Result<()> {
        let flags = if replace {
            RenameFlags::empty()
        } else {
            RenameFlags::NOREPLACE
        };
        rustix::fs::renameat_with(&self.fd, from, &self.fd, to, flags)?;
        Ok(())
    }

    /// Removes `name` (a link itself, never what it points to).
    pub(crate) fn remove(&self, name: &OsStr) -> io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
        Ok(())
    }

    /// Names in the directory.
    pub(crate) fn names(&self) -> Vec<OsString> {
        std::fs::read_dir(&self.path)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.file_name())).collect())
            .unwrap_or_default()
    }
}

fn check_regular(fd: &OwnedFd) -> io::Result<()> {
    let st = rustix::fs::fstat(fd)?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile if st.st_nlink == 1 => Ok(()),
        FileType::RegularFile => Err(io::Error::other(format!(
            "a regular file with {} links: refused",
            st.st_nlink
        ))),
        t => Err(io::Error::other(format!("{}: refused", kind_name(t)))),
    }
}

/// Takes an exclusive `flock` on `file` without waiting; false if another
/// process holds it. Released when the file is closed, even by a kill.
pub(crate) fn try_lock(file: &File) -> bool {
    rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok()
}
