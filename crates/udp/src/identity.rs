//! Static key pairs (X25519) that name the two ends of a transfer, and
//! the receiver's list of the senders it admits (issue 34).
//!
//! A [`PrivateKey`] file, written by `dropless keygen --pair`, holds the
//! key in base64 on one line (as WireGuard's `wg genkey` writes it), mode
//! 0600; its [`PublicKey`] is printed in base64 too, and read in base64
//! (44 characters) or hexadecimal (64 digits). An [`AllowedPeers`] file
//! lists one public key per line, as WireGuard's peers or ssh's
//! `authorized_keys`: blank lines and `#` comments are skipped, and what
//! follows the key on its line (after white space) is a name for people.
//!
//! Files are read with the same care as a pre-shared key file
//! ([`read_small_file`]): only a regular file (a FIFO would block, a device
//! never end), at most [`MAX_FILE`] bytes; a private key that its group or
//! others may read or write is refused (as ssh refuses such a key), and so
//! is an allowed-peers file that they may write (as ssh's `StrictModes`
//! refuses such an `authorized_keys`: whoever can write it can add
//! themselves).

use std::fmt;
use std::path::Path;

use anyhow::{bail, Context};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use snow::params::DHChoice;
use snow::resolvers::{CryptoResolver, DefaultResolver};

/// Largest key or allowed-peers file read (1 MiB: about 20,000 keys).
pub const MAX_FILE: u64 = 1 << 20;

/// An X25519 public key: who a peer is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PublicKey(pub [u8; 32]);

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({self})")
    }
}

impl fmt::Display for PublicKey {
    /// Base64, 44 characters (as WireGuard prints keys).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&B64.encode(self.0))
    }
}

/// 32 bytes from 44 base64 characters or 64 hexadecimal digits.
fn key_bytes(s: &str) -> Result<[u8; 32], String> {
    let s = s.trim();
    let bytes = if s.len() == 64 && s.bytes().all(|c| c.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("checked hex"))
            .collect::<Vec<u8>>()
    } else if s.len() == 44 {
        B64.decode(s)
            .map_err(|_| "44 characters that are not base64".to_string())?
    } else {
        return Err(format!(
            "expected a key of 44 base64 characters or 64 hexadecimal digits, found {} characters",
            s.chars().count()
        ));
    };
    bytes
        .try_into()
        .map_err(|_| "a base64 key that is not 32 bytes".to_string())
}

impl PublicKey {
    /// Parses 44 base64 characters or 64 hexadecimal digits (surrounding
    /// white space allowed).
    pub fn parse(s: &str) -> Result<PublicKey, String> {
        key_bytes(s).map(PublicKey)
    }
}

/// An X25519 private key. Its `Debug` does not print the key.
#[derive(Clone, PartialEq, Eq)]
pub struct PrivateKey([u8; 32]);

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PrivateKey(..)")
    }
}

fn x25519() -> Box<dyn snow::types::Dh> {
    DefaultResolver
        .resolve_dh(&DHChoice::Curve25519)
        .expect("snow's default resolver has X25519")
}

impl PrivateKey {
    /// A key from the operating system's random source.
    pub fn generate() -> anyhow::Result<PrivateKey> {
        Ok(PrivateKey(crate::secure::random_key()?))
    }

    /// A key given as its bytes (tests).
    pub fn from_bytes(k: [u8; 32]) -> PrivateKey {
        PrivateKey(k)
    }

    /// The bytes, for the Noise handshake.
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The public key that goes with it (X25519 of the base point).
    pub fn public(&self) -> PublicKey {
        let mut dh = x25519();
        dh.set(&self.0);
        PublicKey(dh.pubkey().try_into().expect("32 bytes"))
    }

    /// Parses the content of a private key file (44 base64 characters).
    pub fn parse(s: &str) -> Result<PrivateKey, String> {
        let t = s.trim();
        if t.len() == 64 && t.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(
                "found 64 hexadecimal digits: a pre-shared key (give it with --key); \
                 a private key from `dropless keygen --pair` is 44 base64 characters"
                    .to_string(),
            );
        }
        if t.len() != 44 {
            return Err(format!(
                "expected a private key from `dropless keygen --pair` (44 base64 characters), found {} characters",
                t.chars().count()
            ));
        }
        key_bytes(t).map(PrivateKey)
    }

    /// Reads a private key file (see the module docs for what is refused).
    pub fn from_file(path: &Path) -> anyhow::Result<PrivateKey> {
        let s = read_small_file(path, "private key file", 0o077)?;
        PrivateKey::parse(&s)
            .map_err(|e| anyhow::anyhow!("private key file {}: {e}", path.display()))
    }

    /// Writes a new private key file with mode 0600; refuses to replace a
    /// file (or to follow a link).
    pub fn write_new_file(&self, path: &Path) -> anyhow::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .with_context(|| format!("creating private key file {}", path.display()))?;
        writeln!(f, "{}", B64.encode(self.0))
            .with_context(|| format!("writing private key file {}", path.display()))
    }
}

/// The senders a receiver admits, by public key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedPeers {
    /// Sorted, without repeats.
    keys: Vec<PublicKey>,
}

impl AllowedPeers {
    /// A list of these keys.
    pub fn new(mut keys: Vec<PublicKey>) -> AllowedPeers {
        keys.sort_unstable();
        keys.dedup();
        AllowedPeers { keys }
    }

    /// Whether `k` is listed.
    pub fn allows(&self, k: &PublicKey) -> bool {
        self.keys.binary_search(k).is_ok()
    }

    /// How many keys are listed.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key is listed.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> &[PublicKey] {
        &self.keys
    }

    /// Parses an allowed-peers file's content; errors name the line.
    /// A list without a single key is refused (no sender could connect).
    pub fn parse(s: &str) -> Result<AllowedPeers, String> {
        let mut keys = Vec::new();
        for (i, line) in s.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let key = line.split_whitespace().next().expect("a non-empty line");
            let k = PublicKey::parse(key).map_err(|e| {
                format!(
                    "line {}: {e} (one public key per line, then an optional name; # starts a comment)",
                    i + 1
                )
            })?;
            keys.push(k);
        }
        if keys.is_empty() {
            return Err(
                "lists no public key (one per line, from `dropless keygen --pair`): no sender could connect"
                    .to_string(),
            );
        }
        Ok(AllowedPeers::new(keys))
    }

    /// Reads an allowed-peers file (see the module docs for what is
    /// refused).
    pub fn from_file(path: &Path) -> anyhow::Result<AllowedPeers> {
        let s = read_small_file(path, "allowed-peers file", 0o022)?;
        AllowedPeers::parse(&s)
            .map_err(|e| anyhow::anyhow!("allowed-peers file {}: {e}", path.display()))
    }
}

/// Reads a key-like file of at most [`MAX_FILE`] bytes as text. Refused,
/// without reading a byte: anything but a regular file (opened
/// non-blocking to find out, so a FIFO does not block), and a file whose
/// permission bits meet `forbidden` (0o077: group and others must have no
/// access; 0o022: they must not write). `what` names the file in errors.
pub(crate) fn read_small_file(path: &Path, what: &str, forbidden: u32) -> anyhow::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("opening {what} {}", path.display()))?;
    let meta = f
        .metadata()
        .with_context(|| format!("reading {what} {}", path.display()))?;
    let t = meta.file_type();
    if !t.is_file() {
        let kind = if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_dir() {
            "a directory"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        bail!(
            "{what} {} is {kind}: a {what} must be a regular file",
            path.display()
        );
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & forbidden != 0 {
        let who = if forbidden == 0o022 {
            "group and others must not write it"
        } else {
            "group and others must have no access"
        };
        let fix = if forbidden == 0o022 { "go-w" } else { "600" };
        bail!(
            "{what} {} has mode {mode:04o}: {who} (chmod {fix} {})",
            path.display(),
            path.display()
        );
    }
    if meta.len() > MAX_FILE {
        bail!(
            "{what} {} has {} bytes: at most {MAX_FILE} are read",
            path.display(),
            meta.len()
        );
    }
    let mut s = String::new();
    f.take(MAX_FILE)
        .read_to_string(&mut s)
        .with_context(|| format!("reading {what} {}", path.display()))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_the_public_key_is_x25519_of_the_private() {
        let k = PrivateKey::generate().unwrap();
        let p = k.public();
        assert_eq!(PublicKey::parse(&p.to_string()).unwrap(), p);
        let hex: String = p.0.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(PublicKey::parse(&format!(" {hex}\n")).unwrap(), p);
        assert_eq!(
            PrivateKey::parse(&B64.encode(k.bytes())).unwrap().public(),
            p
        );
        // RFC 7748 section 6.1: Alice's private and public keys.
        let alice = PrivateKey::from_bytes(
            *b"\x77\x07\x6d\x0a\x73\x18\xa5\x7d\x3c\x16\xc1\x72\x51\xb2\x66\x45\
               \xdf\x4c\x2f\x87\xeb\xc0\x99\x2a\xb1\x77\xfb\xa5\x1d\xb9\x2c\x2a",
        );
        assert_eq!(
            alice.public().0,
            *b"\x85\x20\xf0\x09\x89\x30\xa7\x54\x74\x8b\x7d\xdc\xb4\x3e\xf7\x5a\
               \x0d\xbf\x3a\x0d\x26\x38\x1a\xf4\xeb\xa4\xa9\x8e\xaa\x9b\x4e\x6a"
        );
        assert_eq!(format!("{k:?}"), "PrivateKey(..)");
    }

    #[test]
    fn bad_keys_and_lists_are_named() {
        assert!(PublicKey::parse("abc").unwrap_err().contains("44 base64"));
        assert!(PublicKey::parse(&"!".repeat(44))
            .unwrap_err()
            .contains("not base64"));
        let psk = "ab".repeat(32);
        assert!(PrivateKey::parse(&psk)
            .unwrap_err()
            .contains("a pre-shared key"));
        let a = PrivateKey::from_bytes([1; 32]).public();
        let b = PrivateKey::from_bytes([2; 32]).public();
        let list = format!("# senders\n\n{a} laptop\n  {b}\n{a} again\n");
        let peers = AllowedPeers::parse(&list).unwrap();
        assert_eq!(peers.len(), 2);
        assert!(peers.allows(&a) && peers.allows(&b));
        assert!(!peers.allows(&PrivateKey::from_bytes([3; 32]).public()));
        let e = AllowedPeers::parse(&format!("{a}\nnot-a-key\n")).unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(AllowedPeers::parse("# nobody\n")
            .unwrap_err()
            .contains("lists no public key"));
    }

    #[test]
    fn files_open_to_others_and_non_regular_files_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("dropless-identity-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let k = PrivateKey::generate().unwrap();
        let path = dir.join("id");
        k.write_new_file(&path).unwrap();
        assert_eq!(PrivateKey::from_file(&path).unwrap(), k);
        assert!(k.write_new_file(&path).is_err(), "an existing file is kept");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = format!("{:#}", PrivateKey::from_file(&path).unwrap_err());
        assert!(e.contains("mode 0640") && e.contains("chmod 600"), "{e}");
        let peers = dir.join("peers");
        std::fs::write(&peers, format!("{}\n", k.public())).unwrap();
        std::fs::set_permissions(&peers, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(AllowedPeers::from_file(&peers).unwrap().allows(&k.public()));
        std::fs::set_permissions(&peers, std::fs::Permissions::from_mode(0o664)).unwrap();
        let e = format!("{:#}", AllowedPeers::from_file(&peers).unwrap_err());
        assert!(
            e.contains("mode 0664") && e.contains("must not write"),
            "{e}"
        );
        let e = format!(
            "{:#}",
            AllowedPeers::from_file(Path::new("/dev/null")).unwrap_err()
        );
        assert!(e.contains("a device"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
