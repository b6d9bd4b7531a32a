//! A directory sent in one session (issue 34 item 4): the sender packs the
//! tree into one stream, a *file list* followed by the files' bytes in
//! list order, and sends it like a file (inside the authenticated,
//! encrypted session, ending in its BLAKE3 hash); the receiver checks the
//! hash, decodes the list and only then unpacks it into its target
//! directory.
//!
//! # The file list
//!
//! ```text
//! magic    8 bytes  "DLTREE\0\x01"
//! hlen     u32 BE   bytes of the whole list, magic included
//! count    u32 BE   entries
//! entry:   kind u8 (0 directory, 1 file) | mode u32 BE (permission bits)
//!          | mtime seconds i64 BE | mtime nanoseconds u32 BE
//!          | size u64 BE (0 for a directory) | name length u16 BE | name
//! ```
//!
//! A name is a relative path of `/`-separated components. The receiver
//! ([`FileList::decode`]) refuses the whole list, before it writes
//! anything, if any name is empty, absolute, has an empty, `.` or `..`
//! component or a NUL byte, repeats another name, or if the sizes do not
//! add up to the stream. Unpacking ([`unpack`]) opens every directory on
//! the way relative to the one above it with no-follow, so a symbolic link
//! already in the target directory is never followed out of it; each file
//! is created exclusively under a temporary name and renamed into place
//! (an existing file is replaced only with `force`, and only a regular
//! file). Set-user-id, set-group-id and sticky bits are not carried.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use anyhow::{bail, Context};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, Timespec, Timestamps};

/// The list's first bytes.
pub const MAGIC: [u8; 8] = *b"DLTREE\0\x01";
/// Most entries in one list.
pub const MAX_ENTRIES: u32 = 1 << 20;
/// Longest name (a path relative to the target directory), bytes.
pub const MAX_NAME: usize = 4096;
/// Longest list, bytes.
pub const MAX_LIST: u32 = 64 << 20;
/// Longest single component of a name, bytes (Linux's `NAME_MAX`).
const MAX_COMPONENT: usize = 255;
const FIXED: usize = 8 + 4 + 4;
const ENTRY_FIXED: usize = 1 + 4 + 8 + 4 + 8 + 2;
/// The permission bits carried (no set-id or sticky bits).
const MODE_BITS: u32 = 0o777;

/// What an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A directory (created if missing).
    Dir,
    /// A regular file whose `size` bytes follow the list in list order.
    File,
}

/// One directory or file of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Directory or file.
    pub kind: EntryKind,
    /// Relative path, `/`-separated, as bytes.
    pub name: Vec<u8>,
    /// Permission bits (`& 0o777`).
    pub mode: u32,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// Modification time, nanoseconds within the second.
    pub mtime_nsec: u32,
    /// Bytes (0 for a directory).
    pub size: u64,
}

/// The entries of a tree, in stream order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileList {
    /// Directories and files; a directory comes before what is in it.
    pub entries: Vec<Entry>,
}

/// Checks that `name` stays inside the directory it is relative to.
fn check_name(name: &[u8]) -> Result<(), String> {
    let shown = String::from_utf8_lossy(name);
    if name.is_empty() {
        return Err("an empty name".into());
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "a name of {} bytes (at most {MAX_NAME})",
            name.len()
        ));
    }
    if name[0] == b'/' {
        return Err(format!("\"{shown}\" is an absolute path"));
    }
    if name.contains(&0) {
        return Err(format!("\"{shown}\" contains a NUL byte"));
    }
    for c in name.split(|&b| b == b'/') {
        match c {
            b"" => return Err(format!("\"{shown}\" has an empty component")),
            b"." | b".." => {
                return Err(format!(
                    "\"{shown}\" has a \"{}\" component",
                    String::from_utf8_lossy(c)
                ))
            }
            c if c.len() > MAX_COMPONENT => {
                return Err(format!(
                    "\"{shown}\" has a component over {MAX_COMPONENT} bytes"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

impl FileList {
    /// Bytes of the files (what follows the list).
    pub fn content_len(&self) -> u64 {
        self.entries.iter().map(|e| e.size).sum()
    }

    /// The encoded list, names as they are (the receiver checks them:
    /// [`FileList::decode`]). Errors only if the list is too long.
    pub fn encode(&self) -> anyhow::Result<Vec<u8>> {
        if self.entries.len() > MAX_ENTRIES as usize {
            bail!(
                "{} entries: at most {MAX_ENTRIES} in one directory transfer",
                self.entries.len()
            );
        }
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        for e in &self.entries {
            encode_entry(e, &mut out);
        }
        if out.len() > MAX_LIST as usize {
            bail!("the file list is {} bytes: at most {MAX_LIST}", out.len());
        }
        let n = out.len() as u32;
        out[8..12].copy_from_slice(&n.to_be_bytes());
        Ok(out)
    }
}

fn encode_entry(e: &Entry, out: &mut Vec<u8>) {
    out.push(match e.kind {
        EntryKind::Dir => 0,
        EntryKind::File => 1,
    });
    out.extend_from_slice(&(e.mode & MODE_BITS).to_be_bytes());
    out.extend_from_slice(&e.mtime.to_be_bytes());
    out.extend_from_slice(&e.mtime_nsec.to_be_bytes());
    out.extend_from_slice(&e.size.to_be_bytes());
    out.extend_from_slice(&(e.name.len() as u16).to_be_bytes());
    out.extend_from_slice(&e.name[..e.name.len().min(u16::MAX as usize)]);
}

impl FileList {
    /// The list's length from its first 12 bytes, if they start a list
    /// of an acceptable length.
    pub fn list_len(head: &[u8]) -> Result<u32, String> {
        if head.len() < 12 || head[..8] != MAGIC {
            return Err("the stream does not start with a file list".into());
        }
        let n = u32::from_be_bytes(head[8..12].try_into().expect("4 bytes"));
        if (n as usize) < FIXED || n > MAX_LIST {
            return Err(format!("a file list of {n} bytes ({FIXED} to {MAX_LIST})"));
        }
        Ok(n)
    }

    /// Decodes a whole list (exactly [`FileList::list_len`] bytes) and
    /// checks every name (see the module docs); the error says what was
    /// refused. Never panics, whatever the bytes.
    pub fn decode(b: &[u8]) -> Result<FileList, String> {
        let n = Self::list_len(b)? as usize;
        if b.len() != n {
            return Err(format!("a file list of {} bytes says {n}", b.len()));
        }
        let count = u32::from_be_bytes(b[12..16].try_into().expect("4 bytes"));
        if count > MAX_ENTRIES {
            return Err(format!("{count} entries (at most {MAX_ENTRIES})"));
        }
        let mut at = FIXED;
        let mut entries = Vec::with_capacity(count.min(4096) as usize);
        let mut seen: HashSet<&[u8]> = HashSet::new();
        let mut dirs: HashSet<&[u8]> = HashSet::new();
        let mut total = 0u64;
        for k in 0..count {
            let f = b
                .get(at..at + ENTRY_FIXED)
                .ok_or_else(|| format!("entry {k} runs past the list"))?;
            let kind = match f[0] {
                0 => EntryKind::Dir,
                1 => EntryKind::File,
                x => return Err(format!("entry {k} has kind {x} (0 directory, 1 file)")),
            };
            let mode = u32::from_be_bytes(f[1..5].try_into().expect("4"));
            if mode & !MODE_BITS != 0 {
                return Err(format!(
                    "entry {k} has mode {mode:o} (permission bits only)"
                ));
            }
            let mtime = i64::from_be_bytes(f[5..13].try_into().expect("8"));
            let mtime_nsec = u32::from_be_bytes(f[13..17].try_into().expect("4"));
            if mtime_nsec >= 1_000_000_000 {
                return Err(format!("entry {k} has {mtime_nsec} nanoseconds"));
            }
            let size = u64::from_be_bytes(f[17..25].try_into().expect("8"));
            if kind == EntryKind::Dir && size != 0 {
                return Err(format!("directory entry {k} has size {size}"));
            }
            let len = u16::from_be_bytes(f[25..27].try_into().expect("2")) as usize;
            at += ENTRY_FIXED;
            let name = b
                .get(at..at + len)
                .ok_or_else(|| format!("entry {k}'s name runs past the list"))?;
            at += len;
            check_name(name).map_err(|m| format!("entry {k}: {m}"))?;
            if !seen.insert(name) {
                return Err(format!(
                    "entry {k}: \"{}\" is named twice",
                    String::from_utf8_lossy(name)
                ));
            }
            // A directory comes before what is in it.
            if let Some(cut) = name.iter().rposition(|&c| c == b'/') {
                if !dirs.contains(&name[..cut]) {
                    return Err(format!(
                        "entry {k}: \"{}\" comes before its directory",
                        String::from_utf8_lossy(name)
                    ));
                }
            }
            if kind == EntryKind::Dir {
                dirs.insert(name);
            }
            total = total
                .checked_add(size)
                .ok_or_else(|| "the sizes overflow".to_string())?;
            entries.push(Entry {
                kind,
                name: name.to_vec(),
                mode,
                mtime,
                mtime_nsec,
                size,
            });
        }
        if at != n {
            return Err(format!("{} bytes after the last entry", n - at));
        }
        Ok(FileList { entries })
    }
}

/// Walks `root` (a directory) into a list, sorted by name so that the same
/// tree always gives the same stream (a resumed transfer names it by its
/// hash). Only directories and regular files are sent: anything else (a
/// symbolic link, a device) is an error naming it.
pub fn scan(root: &Path) -> anyhow::Result<(FileList, Vec<std::path::PathBuf>)> {
    let mut list = FileList::default();
    let mut paths = Vec::new();
    walk(root, &[], &mut list, &mut paths)?;
    Ok((list, paths))
}

fn walk(
    dir: &Path,
    prefix: &[u8],
    list: &mut FileList,
    paths: &mut Vec<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading the directory {}", dir.display()))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading the directory {}", dir.display()))?;
    names.sort();
    for n in names {
        let path = dir.join(&n);
        let md = std::fs::symlink_metadata(&path)
            .with_context(|| format!("reading metadata of {}", path.display()))?;
        let mut name = prefix.to_vec();
        if !name.is_empty() {
            name.push(b'/');
        }
        name.extend_from_slice(n.as_bytes());
        let ft = md.file_type();
        let kind = if ft.is_dir() {
            EntryKind::Dir
        } else if ft.is_file() {
            EntryKind::File
        } else {
            bail!(
                "{} is not a regular file or a directory (a symbolic link or a special file): not sent",
                path.display()
            );
        };
        list.entries.push(Entry {
            kind,
            name: name.clone(),
            mode: md.mode() & MODE_BITS,
            mtime: md.mtime(),
            mtime_nsec: md.mtime_nsec() as u32,
            size: if kind == EntryKind::File { md.len() } else { 0 },
        });
        if kind == EntryKind::Dir {
            walk(&path, &name, list, paths)?;
        } else {
            paths.push(path);
        }
    }
    Ok(())
}

/// Packs `root` into `out` (the list, then every file's bytes); errors if
/// a file changed size while it was read.
pub fn pack(root: &Path, out: &mut File) -> anyhow::Result<u64> {
    let (list, paths) = scan(root)?;
    let head = list.encode()?;
    out.write_all(&head).context("writing the file list")?;
    let mut total = head.len() as u64;
    let files = list.entries.iter().filter(|e| e.kind == EntryKind::File);
    for (e, path) in files.zip(&paths) {
        let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let n = io::copy(&mut f, out).with_context(|| format!("reading {}", path.display()))?;
        if n != e.size {
            bail!(
                "{} changed while it was read ({} bytes, then {n})",
                path.display(),
                e.size
            );
        }
        total += n;
    }
    Ok(total)
}

/// Reads and checks the list at the start of `stream` (`len` bytes).
pub fn read_list(stream: &File, len: u64) -> anyhow::Result<(FileList, u64)> {
    let mut head = [0u8; 12];
    if len < 12 {
        bail!("the directory stream is {len} bytes: too short for a file list");
    }
    stream
        .read_exact_at(&mut head, 0)
        .context("reading the file list")?;
    let n = FileList::list_len(&head).map_err(|m| anyhow::anyhow!("refused: {m}"))?;
    if u64::from(n) > len {
        bail!("refused: a file list of {n} bytes in a stream of {len}");
    }
    let mut b = vec![0u8; n as usize];
    stream
        .read_exact_at(&mut b, 0)
        .context("reading the file list")?;
    let list = FileList::decode(&b).map_err(|m| anyhow::anyhow!("refused file list: {m}"))?;
    if u64::from(n) + list.content_len() != len {
        bail!(
            "refused file list: {} bytes of files and a {n}-byte list in a stream of {len}",
            list.content_len()
        );
    }
    Ok((list, u64::from(n)))
}

fn open_dir_at(parent: &OwnedFd, name: &[u8]) -> io::Result<OwnedFd> {
    rustix::fs::openat(
        parent,
        OsStr::from_bytes(name),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io::Error::from)
}

/// The directory fd holding `name`'s last component, walking from `root`
/// with no-follow (a link on the way is an error), and that component.
fn parent_of<'a>(root: &OwnedFd, name: &'a [u8]) -> io::Result<(OwnedFd, &'a [u8])> {
    let mut parts: Vec<&[u8]> = name.split(|&b| b == b'/').collect();
    let last = parts.pop().expect("split gives one part");
    let mut fd = rustix::io::dup(root)?;
    for p in parts {
        fd = open_dir_at(&fd, p)?;
    }
    Ok((fd, last))
}

fn times(e: &Entry) -> Timestamps {
    let t = Timespec {
        tv_sec: e.mtime,
        tv_nsec: e.mtime_nsec as _,
    };
    Timestamps {
        last_access: t,
        last_modification: t,
    }
}

/// Unpacks `stream` (`len` bytes: a list then the files) into the
/// directory `target`, created if missing. Nothing is written before the
/// whole list has been checked; see the module docs for what is refused.
pub fn unpack(stream: &File, len: u64, target: &Path, force: bool) -> anyhow::Result<usize> {
    let (list, mut off) = read_list(stream, len)?;
    match std::fs::symlink_metadata(target) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => bail!("--out {} is not a directory", target.display()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir(target)
                .with_context(|| format!("creating the directory {}", target.display()))?;
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", target.display())),
    }
    let root = rustix::fs::openat(
        rustix::fs::CWD,
        target,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .with_context(|| format!("opening the directory {}", target.display()))?;
    let shown = |e: &Entry| target.join(OsStr::from_bytes(&e.name));
    // Existing files are refused before anything is written (checked
    // again, atomically, at each rename).
    for e in list.entries.iter().filter(|e| e.kind == EntryKind::File) {
        let Ok((dir, last)) = parent_of(&root, &e.name) else {
            continue; // (its directory is made below, or refused there)
        };
        match rustix::fs::statat(&dir, OsStr::from_bytes(last), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile => bail!(
                "{} exists and is not a regular file: not replaced",
                shown(e).display()
            ),
            Ok(_) if !force => bail!("{} exists (add --force to replace it)", shown(e).display()),
            _ => {}
        }
    }
    let mut files = 0;
    for e in &list.entries {
        let (dir, last) = parent_of(&root, &e.name)
            .with_context(|| format!("opening the directory of {}", shown(e).display()))?;
        let last = OsStr::from_bytes(last);
        match e.kind {
            EntryKind::Dir => match rustix::fs::mkdirat(&dir, last, Mode::from_raw_mode(0o700)) {
                Ok(()) => {}
                Err(rustix::io::Errno::EXIST) => {
                    // Must be a real directory, not a link to one.
                    open_dir_at(&dir, last.as_bytes()).with_context(|| {
                        format!("{} exists and is not a directory", shown(e).display())
                    })?;
                }
                Err(err) => {
                    return Err(io::Error::from(err))
                        .with_context(|| format!("creating {}", shown(e).display()))
                }
            },
            EntryKind::File => {
                match rustix::fs::statat(&dir, last, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile => {
                        bail!(
                            "{} exists and is not a regular file: not replaced",
                            shown(e).display()
                        )
                    }
                    Ok(_) if !force => {
                        bail!("{} exists (add --force to replace it)", shown(e).display())
                    }
                    _ => {}
                }
                let tmp = format!(
                    ".{}.{:08x}.dropless-part",
                    last.to_string_lossy(),
                    crate::random_u32()
                );
                let tmp = OsStr::new(&tmp);
                let fd = rustix::fs::openat(
                    &dir,
                    tmp,
                    OFlags::WRONLY
                        | OFlags::CREATE
                        | OFlags::EXCL
                        | OFlags::NOFOLLOW
                        | OFlags::CLOEXEC,
                    Mode::from_raw_mode(0o600),
                )
                .with_context(|| format!("creating a file beside {}", shown(e).display()))?;
                let out = File::from(fd);
                let done = copy_range(stream, off, e.size, &out)
                    .and_then(|()| {
                        rustix::fs::fchmod(&out, Mode::from_raw_mode(e.mode))?;
                        rustix::fs::futimens(&out, &times(e))?;
                        Ok(())
                    })
                    .and_then(|()| {
                        let flags = if force {
                            RenameFlags::empty()
                        } else {
                            RenameFlags::NOREPLACE
                        };
                        rustix::fs::renameat_with(&dir, tmp, &dir, last, flags)?;
                        Ok(())
                    });
                if let Err(err) = done {
                    let _ = rustix::fs::unlinkat(&dir, tmp, AtFlags::empty());
                    return Err(err).with_context(|| format!("writing {}", shown(e).display()));
                }
                off += e.size;
                files += 1;
            }
        }
    }
    // Directories' modes and times last (writing into them moved their
    // times), deepest first.
    for e in list
        .entries
        .iter()
        .rev()
        .filter(|e| e.kind == EntryKind::Dir)
    {
        let (dir, last) = parent_of(&root, &e.name)
            .with_context(|| format!("opening the directory of {}", shown(e).display()))?;
        let d =
            open_dir_at(&dir, last).with_context(|| format!("opening {}", shown(e).display()))?;
        rustix::fs::fchmod(&d, Mode::from_raw_mode(e.mode))
            .and_then(|()| rustix::fs::futimens(&d, &times(e)))
            .with_context(|| format!("setting the mode and time of {}", shown(e).display()))?;
    }
    Ok(files)
}

fn copy_range(from: &File, mut off: u64, len: u64, to: &File) -> io::Result<()> {
    let mut buf = vec![0u8; (len.min(1 << 20)) as usize];
    let mut done = 0u64;
    while done < len {
        let n = ((len - done) as usize).min(buf.len());
        from.read_exact_at(&mut buf[..n], off)?;
        to.write_all_at(&buf[..n], done)?;
        off += n as u64;
        done += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: EntryKind, name: &str, size: u64) -> Entry {
        Entry {
            kind,
            name: name.as_bytes().to_vec(),
            mode: 0o644,
            mtime: 1_700_000_000,
            mtime_nsec: 5,
            size,
        }
    }

    #[test]
    fn a_list_decodes_to_itself() {
        let list = FileList {
            entries: vec![
                entry(EntryKind::Dir, "a", 0),
                entry(EntryKind::File, "a/b", 7),
                entry(EntryKind::File, "c", 0),
            ],
        };
        let b = list.encode().unwrap();
        assert_eq!(FileList::decode(&b).unwrap(), list);
        // Every truncation is refused, none panics.
        for n in 0..b.len() {
            assert!(FileList::decode(&b[..n]).is_err(), "{n}");
        }
    }

    #[test]
    fn names_escaping_the_target_are_refused() {
        for bad in [
            "../x",
            "/etc/x",
            "a/../../x",
            "",
            "a//b",
            "./x",
            "x/.",
            "a\0b",
        ] {
            assert!(check_name(bad.as_bytes()).is_err(), "{bad:?}");
        }
        for good in ["x", "a/b", "..x", "x..", ".hidden"] {
            assert!(check_name(good.as_bytes()).is_ok(), "{good:?}");
        }
    }
}
