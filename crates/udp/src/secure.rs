//! Authenticated encryption of a transfer: a Noise handshake, then every
//! datagram sealed with AEGIS-128L under the handshake's keys, with a
//! replay window.
//!
//! # Protocol
//!
//! Both ends hold the same 32-byte pre-shared key ([`Psk`], a file written
//! by `dropless keygen`). The sender opens a *session* (a random 32-bit id)
//! with the Noise handshake `Noise_NNpsk0_25519_AESGCM_SHA256` (the Noise
//! Protocol Framework, revision 34, run by the `snow` crate with `ring`'s
//! primitives):
//!
//! * `-> psk, e`: the sender's ephemeral key, the first message already
//!   bound to the PSK (its empty payload carries an AEAD tag under a key
//!   derived from the PSK, so a datagram from anyone without the key fails
//!   here and no session is created);
//! * `<- e, ee`: the receiver's ephemeral key; both ends now hold two
//!   transport keys (one per direction) with forward secrecy.
//!
//! After it, every data and ACK datagram of the transfer, header included,
//! is the plaintext of one AEAD message whose nonce is a per-direction
//! counter carried in clear ([`SEAL_HEADER_LEN`] bytes in front, the 16-byte
//! tag behind: [`SEAL_OVERHEAD`] bytes in all). The receiving end checks
//! the nonce against a [`ReplayWindow`] before decrypting and marks it only
//! after the tag verified, so a replayed, altered, truncated or forged
//! datagram is dropped (and counted by the caller) without touching any
//! state. The handshake responder keeps the response it sent and repeats
//! it for a repeated first message from the same address (a lost
//! response), so the handshake survives loss; the sender retransmits its
//! first message until answered, and ignores responses that fail
//! authentication (an on-path injector who sees the session id cannot make
//! it start over).
//!
//! # Replays and key confirmation (issue 34)
//!
//! `Noise_NNpsk0`'s first message can be replayed: it holds no DH output of
//! the responder. So a receiver ([`Responder`]):
//!
//! * binds the session id and the address-validation cookie into the
//!   handshake (the Noise prologue): a captured first message
//!   is valid only from the address its cookie was issued to, and for the
//!   cookie's one to two minutes;
//! * remembers, for that long, the ephemeral key of every first message it
//!   accepted, and answers a repeat only with the stored response, only to
//!   the session's own address ([`InitOutcome::Repeated`]);
//! * keeps an answered session *pending*: it takes no slot of a server,
//!   displaces no session and touches no resume state until a sealed
//!   datagram of the session opens ([`Channel::authenticates`]), which only
//!   the holder of the initiator's ephemeral private key and the PSK can
//!   produce (key confirmation, as WireGuard's responder waits for the
//!   initiator's first data packet).
//!
//! A retry is sent only for a datagram at least [`MIN_INIT_LEN`] bytes
//! long, so it is never larger than what it answers.

//! # Framing
//!
//! The outer header reuses the common header of [`dropless_wire`] (magic
//! `"DL"`, [`dropless_wire::VERSION`]) with five more types:
//!
//! | type | name | after the common header |
//! |---:|---|---|
//! | [`TYPE_HS_INIT`] = 3 | handshake, first message | `session: u32`, `cookie: [u8; 16]`, Noise message |
//! | [`TYPE_HS_RESP`] = 4 | handshake, response | `session: u32`, Noise message |
//! | [`TYPE_SEALED`] = 5 | sealed datagram | `session: u32`, `nonce: u64`, ciphertext and tag of a whole plaintext datagram (type 1 or 2) |
//! | [`TYPE_RETRY`] = 6 | address validation | `session: u32`, `cookie: [u8; 16]` |
//! | [`TYPE_BUSY`] = 7 | a full server's answer to a validated first message | `session: u32` |
//!
//! # Address validation
//!
//! A receiver keeps no state and does no Diffie-Hellman for a first message
//! until its sender has shown that it receives at its source address, as
//! QUIC's Retry and WireGuard's cookie reply do: a first message without a
//! valid cookie is answered with a [`TYPE_RETRY`] datagram carrying one
//! ([`CookieKey`]: a keyed BLAKE3 MAC of the source address, port and
//! session under a secret of the receiving process, valid for one to two
//! minutes), and the sender repeats its first message with the cookie in
//! it. The retry is smaller than the message it answers (24 bytes against
//! at least [`MIN_INIT_LEN`] = 73; shorter datagrams get no answer), so a
//! spoofed source gains no amplification. The cookie travels in clear and
//! is bound into the handshake as part of the prologue: pasted into
//! another message, it fails authentication.
//!
//! # Terms
//!
//! The first message's payload (encrypted under the PSK) is a flags byte
//! (bit 0: the stream ends in the file's BLAKE3 hash; bit 1: resume), and
//! with resume the file's size (`u64`) and BLAKE3 hash (32 bytes), which
//! name the file. The response's payload is empty, or with resume the byte
//! offset (`u64`) the sender is to start from: what the receiver holds of
//! that very file from an interrupted transfer (0 for nothing).
//!
//! Bit 3 (alone) is a reverse request ([`Terms::reverse`], `send -R`): a
//! kind byte (0: bytes, 1: nanoseconds of time) and the amount (`u64`).
//! Its response's payload is one byte, 1 if the receiver grants it
//! ([`Responder::allow_reverse`]), 0 if it refuses; a receiver that grants
//! it sends nothing until the session is confirmed by the asker's first
//! sealed datagram.
//!
//! Why AEGIS-128L for the datagrams (since wire version 6; AES-256-GCM from
//! `ring` before): every datagram is one AEAD call, and on the development
//! machine (AMD EPYC, VAES/AVX-512) a call costs AES-256-GCM 277 ns for a
//! 1,430-byte datagram and 118 ns for a 52-byte ACK, of which about 100 ns
//! is its fixed cost per call (AES-256-GCM in `aws-lc-rs` the same: 276 and
//! 105 ns), against 128 and 46 ns for AEGIS-128L (`aegis`, libaegis) and 188
//! and 54 for AEGIS-256 (medians of 2 million calls each, side by side in
//! one program). AEGIS-128L is the CFRG's AEGIS (draft-irtf-cfrg-aegis-aead:
//! 128-bit key, 128-bit nonce, 128-bit tag, 128-bit security, key- and
//! nonce-committing), used here exactly as AES-GCM was: one key per
//! direction, the nonce a per-direction counter never repeated under a key,
//! empty associated data. Its key is the first 16 bytes of
//! `BLAKE3::derive_key` over the handshake's 32-byte split key (a
//! domain-separated derivation, not a truncation of the Noise key). The
//! handshake itself still uses `ring`'s AES-GCM through snow (a handful of
//! messages).
//!
//! Why AEGIS-128X4 for long datagrams (wire version 7): AEGIS-128X4 is the
//! same draft's four-lane AEGIS-128L (same 128-bit key, nonce and tag and
//! the same security claims), which runs its lanes in AVX-512/VAES
//! registers: seal + open of a 1,430-byte datagram costs about 235 ns
//! against 285 for AEGIS-128L on the development machine
//! (`scripts/aead-cost`), but 155 against 107 ns for a 52-byte ACK. So a
//! plaintext of [`BULK_MIN`] bytes or more is sealed with AEGIS-128X4 and a
//! shorter one with AEGIS-128L, each variant under its own key (a second
//! `derive_key` context over the same split key: no key is ever used with
//! two algorithms). Both take their nonces from the one per-direction
//! counter, so no nonce repeats under either key. The opener picks the
//! variant from the datagram's length, which the tag covers either way: a
//! datagram cut or padded across the threshold is opened with the other
//! variant's key and fails. Before AEGIS: ring's AES-GCM ran at 25.6 Gb/s in bulk on one
//! core, 8.0 with ring's ChaCha20-Poly1305, 5.6 and 2.5 with snow's
//! pure-Rust AES-GCM and ChaCha20-Poly1305.
//!
//! Why a pre-shared key first: it needs no public-key infrastructure and
//! one file on both ends, as WireGuard's optional PSK or `ssh` with a shared
//! key; the Noise pattern gives forward secrecy on top.
//!
//! # Key pairs (issue 34)
//!
//! With [`Keys::to_peer`] / [`Keys::from_peers`] both ends hold X25519 key
//! pairs ([`crate::identity`]) and run `Noise_IK_25519_AESGCM_SHA256`
//! (`Noise_IKpsk2_...` with a pre-shared key as well): `-> e, es, s, ss`
//! then `<- e, ee, se`. The framing, the cookie in the prologue, the replay
//! filter and the pending state until key confirmation are the same; the
//! responder reads the sender's static key from the first message and
//! drops the message unless the key is in its [`AllowedPeers`], before it
//! keeps anything or answers.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use aegis::aegis128l::Aegis128L;
use aegis::aegis128x4::Aegis128X4;
use anyhow::{bail, Context};
use dropless_wire::{COMMON_HEADER_LEN, MAGIC, VERSION};
use snow::resolvers::{DefaultResolver, FallbackResolver, RingResolver};
use snow::HandshakeState;

use crate::held::{Held, MAX_HELD_RANGES, RANGE_LEN};

pub use crate::identity::{AllowedPeers, PrivateKey, PublicKey};

/// The Noise protocol name.
pub const NOISE_PATTERN: &str = "Noise_NNpsk0_25519_AESGCM_SHA256";
/// The Noise protocol name with static key pairs.
pub const NOISE_PATTERN_IK: &str = "Noise_IK_25519_AESGCM_SHA256";
/// The Noise protocol name with static key pairs and a pre-shared key.
pub const NOISE_PATTERN_IK_PSK: &str = "Noise_IKpsk2_25519_AESGCM_SHA256";
/// Bound into the handshake: a peer of another protocol or version fails it.
/// (v2: the session id and cookie are bound as well, see [`prologue`].)
const PROLOGUE: &[u8] = b"dropless sealed v2";
/// Handshake, first message.
pub const TYPE_HS_INIT: u8 = 3;
/// Handshake, response.
pub const TYPE_HS_RESP: u8 = 4;
/// A sealed datagram.
pub const TYPE_SEALED: u8 = 5;
/// An address-validation reply carrying a cookie.
pub const TYPE_RETRY: u8 = 6;
/// A server's "all slots taken" to a first message with a valid cookie
/// (common header and session only, unauthenticated: the sender only
/// names it as the cause if its handshake times out).
pub const TYPE_BUSY: u8 = 7;
/// Bytes of an address-validation cookie.
pub const COOKIE_LEN: usize = 16;
/// Where the Noise message starts in a first message.
const INIT_NOISE_AT: usize = COMMON_HEADER_LEN + 4 + COOKIE_LEN;
/// Where the Noise message starts in a response.
const RESP_NOISE_AT: usize = COMMON_HEADER_LEN + 4;
/// Bytes of a [`TYPE_RETRY`] datagram.
pub const RETRY_LEN: usize = COMMON_HEADER_LEN + 4 + COOKIE_LEN;
/// The shortest first message that can be valid (header, session, cookie,
/// ephemeral key, a one-byte payload and its tag): anything shorter is
/// not answered at all, so that a retry ([`RETRY_LEN`] bytes) is never
/// larger than what it answers.
pub const MIN_INIT_LEN: usize = INIT_NOISE_AT + 32 + 1 + TAG_LEN;
// No amplification before address validation.
const _: () = assert!(RETRY_LEN <= MIN_INIT_LEN);
/// Bytes in front of a sealed datagram's ciphertext: common header,
/// session, nonce.
pub const SEAL_HEADER_LEN: usize = COMMON_HEADER_LEN + 4 + 8;
/// The AEAD tag.
pub const TAG_LEN: usize = 16;
/// Bytes a sealed datagram adds to its plaintext.
pub const SEAL_OVERHEAD: usize = SEAL_HEADER_LEN + TAG_LEN;
/// Plaintexts of at least this many bytes (data datagrams of a full or
/// near-full payload) are sealed with AEGIS-128X4 under a key of their own,
/// shorter ones (ACKs, short data) with AEGIS-128L: the opener tells which
/// from the datagram's length (wire version 7; see the module text).
pub const BULK_MIN: usize = 256;
/// Largest first handshake message (97 bytes at most with a pre-shared
/// key, 165 with key pairs: its static key travels encrypted).
pub const MAX_HANDSHAKE_LEN: usize = INIT_NOISE_AT + 160;
/// Largest response: its ephemeral key, tag and a payload of at most
/// [`MAX_HELD_RANGES`] held ranges (1,096 bytes; it goes only to an
/// address the cookie validated).
pub const MAX_RESPONSE_LEN: usize = RESP_NOISE_AT + 32 + TAG_LEN + MAX_HELD_RANGES * RANGE_LEN;

/// A 32-byte pre-shared key. Its `Debug` does not print the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Psk([u8; 32]);

impl fmt::Debug for Psk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Psk(..)")
    }
}

/// 32 bytes from the operating system's random source: every key this
/// crate generates (pre-shared, private, cookie) starts here.
pub(crate) fn random_key() -> anyhow::Result<[u8; 32]> {
    let mut k = [0u8; 32];
    getrandom::fill(&mut k).map_err(|e| anyhow::anyhow!("reading random bytes: {e}"))?;
    Ok(k)
}

impl Psk {
    /// A key from the operating system's random source.
    pub fn generate() -> anyhow::Result<Psk> {
        Ok(Psk(random_key()?))
    }

    /// A key given as its bytes (tests).
    pub fn from_bytes(k: [u8; 32]) -> Psk {
        Psk(k)
    }

    /// The key as 64 lowercase hexadecimal digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses 64 hexadecimal digits (surrounding white space allowed).
    pub fn from_hex(s: &str) -> Result<Psk, String> {
        let s = s.trim();
        if s.len() != 64 || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "expected 64 hexadecimal digits (a key from `dropless keygen`), found {} characters",
                s.chars().count()
            ));
        }
        let mut k = [0u8; 32];
        for (i, b) in k.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("checked hex");
        }
        Ok(Psk(k))
    }

    /// Reads a key file (at most 1 KiB; 64 hexadecimal digits). Refused,
    /// without reading a byte: anything but a regular file (a FIFO or a
    /// device would block or never end; it is opened non-blocking to find
    /// out), and a file that its group or others may read or write (as
    /// `ssh` refuses such a private key: the key is the whole secret, and
    /// a warning scrolls by unread).
    pub fn from_file(path: &Path) -> anyhow::Result<Psk> {
        let s = crate::identity::read_small_file(path, "key file", 0o077)?;
        Psk::from_hex(&s).map_err(|e| anyhow::anyhow!("key file {}: {e}", path.display()))
    }

    /// Writes a new key file with mode 0600; refuses to replace a file.
    pub fn write_new_file(&self, path: &Path) -> anyhow::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .with_context(|| format!("creating key file {}", path.display()))?;
        writeln!(f, "{}", self.to_hex())
            .with_context(|| format!("writing key file {}", path.display()))
    }
}

/// The handshake's prologue: [`PROLOGUE`], then the first message's
/// session id and cookie as they travel in clear. Both ends mix it into
/// the handshake hash, so a first message whose cookie or session was
/// changed in flight (an attacker pasting the cookie it was given for its
/// own address into a captured message) fails authentication.
fn prologue(session: u32, cookie: &[u8]) -> [u8; PROLOGUE.len() + 4 + COOKIE_LEN] {
    let mut p = [0u8; PROLOGUE.len() + 4 + COOKIE_LEN];
    p[..PROLOGUE.len()].copy_from_slice(PROLOGUE);
    p[PROLOGUE.len()..PROLOGUE.len() + 4].copy_from_slice(&session.to_be_bytes());
    p[PROLOGUE.len() + 4..].copy_from_slice(cookie);
    p
}

/// What a transfer's two ends authenticate each other with: a pre-shared
/// key ([`Psk`], Noise `NNpsk0`), or static key pairs (Noise `IK`), with a
/// pre-shared key mixed in as well if one is given (Noise `IKpsk2`).
///
/// With key pairs, the sender names the receiver's public key (exactly
/// one peer), and the receiver lists the senders it admits
/// ([`AllowedPeers`]): a first message from a key not listed is dropped
/// (after the cookie check, before any state is kept or anything is sent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keys {
    psk: Option<Psk>,
    pair: Option<(PrivateKey, AllowedPeers)>,
}

impl From<Psk> for Keys {
    fn from(psk: Psk) -> Keys {
        Keys::shared(psk)
    }
}

impl Keys {
    /// A pre-shared key alone (`Noise_NNpsk0`).
    pub fn shared(psk: Psk) -> Keys {
        Keys {
            psk: Some(psk),
            pair: None,
        }
    }

    /// A sender's keys: its own private key, the receiver's public key,
    /// and optionally a pre-shared key as well (`Noise_IK`, `Noise_IKpsk2`).
    pub fn to_peer(me: PrivateKey, peer: PublicKey, psk: Option<Psk>) -> Keys {
        Keys {
            psk,
            pair: Some((me, AllowedPeers::new(vec![peer]))),
        }
    }

    /// A receiver's keys: its own private key, the senders it admits, and
    /// optionally a pre-shared key as well.
    pub fn from_peers(me: PrivateKey, allowed: AllowedPeers, psk: Option<Psk>) -> Keys {
        Keys {
            psk,
            pair: Some((me, allowed)),
        }
    }

    /// The Noise protocol name these keys run.
    pub fn pattern(&self) -> &'static str {
        match (&self.pair, &self.psk) {
            (None, _) => NOISE_PATTERN,
            (Some(_), None) => NOISE_PATTERN_IK,
            (Some(_), Some(_)) => NOISE_PATTERN_IK_PSK,
        }
    }

    /// Whether these are static key pairs (with or without a PSK).
    pub fn has_pair(&self) -> bool {
        self.pair.is_some()
    }

    /// The public key of this end, with key pairs.
    pub fn public(&self) -> Option<PublicKey> {
        self.pair.as_ref().map(|(k, _)| k.public())
    }
}

fn builder<'a>(
    keys: &'a Keys,
    prologue: &'a [u8],
    initiator: bool,
) -> anyhow::Result<snow::Builder<'a>> {
    let params = keys.pattern().parse().expect("a valid Noise pattern");
    // ring's AES-GCM and SHA-256 (assembly, with AES-NI where the CPU has
    // it); snow's own pure-Rust primitives for anything else (X25519).
    let resolver = FallbackResolver::new(Box::new(RingResolver), Box::new(DefaultResolver));
    let err = |e: snow::Error| anyhow::anyhow!("setting up the Noise handshake: {e}");
    let mut b = snow::Builder::with_resolver(params, Box::new(resolver))
        .prologue(prologue)
        .map_err(err)?;
    match (&keys.pair, &keys.psk) {
        (None, Some(psk)) => b = b.psk(0, &psk.0).map_err(err)?,
        (None, None) => bail!("no key to run a handshake with"),
        (Some((me, peers)), psk) => {
            b = b.local_private_key(me.bytes()).map_err(err)?;
            if initiator {
                let [peer] = peers.keys() else {
                    bail!("a sender names exactly one receiver's public key");
                };
                b = b.remote_public_key(&peer.0).map_err(err)?;
            }
            if let Some(psk) = psk {
                b = b.psk(2, &psk.0).map_err(err)?;
            }
        }
    }
    Ok(b)
}

fn header(out: &mut [u8], kind: u8, session: u32) {
    out[..2].copy_from_slice(&MAGIC);
    out[2] = VERSION;
    out[3] = kind;
    out[4..8].copy_from_slice(&session.to_be_bytes());
}

/// The type and session of a datagram of this module's framing, or `None`
/// for anything else (a plaintext datagram, garbage).
pub fn peek(dgram: &[u8]) -> Option<(u8, u32)> {
    if dgram.len() < COMMON_HEADER_LEN + 4 || dgram[..2] != MAGIC || dgram[2] != VERSION {
        return None;
    }
    let kind = dgram[3];
    if !(TYPE_HS_INIT..=TYPE_BUSY).contains(&kind) {
        return None;
    }
    Some((
        kind,
        u32::from_be_bytes(dgram[4..8].try_into().expect("4 bytes")),
    ))
}

/// The [`TYPE_BUSY`] reply to a first message (8 bytes: never more than
/// what it answers), or `None` if `dgram` is not one.
pub fn busy_reply(dgram: &[u8]) -> Option<[u8; COMMON_HEADER_LEN + 4]> {
    let Some((TYPE_HS_INIT, session)) = peek(dgram) else {
        return None;
    };
    let mut out = [0u8; COMMON_HEADER_LEN + 4];
    header(&mut out, TYPE_BUSY, session);
    Some(out)
}

/// What a sender announces in its first handshake message (see "Terms"
/// in the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// The stream ends with [`HASH_LEN`] bytes that are the BLAKE3 hash of
    /// everything before them (a file's whole-file check): the receiver
    /// verifies it before saving the file and does not save the trailer.
    pub hashed: bool,
    /// The sender asks to continue an interrupted transfer of this file:
    /// a receiver that holds parts of it answers with the byte ranges it
    /// holds ([`Channel::held`]), which the stream then leaves out.
    pub resume: Option<FileId>,
    /// The stream is a directory: a file list and the files' bytes (see
    /// the `tree` module); the receiver unpacks it into its target
    /// directory.
    pub tree: bool,
    /// Reverse mode (`dropless send -R`, as iperf3's `-R`): the sender of
    /// this first message asks the receiver to send it this much generated
    /// data. Only a receiver that opted in ([`Responder::allow_reverse`])
    /// grants it ([`Channel::reverse_granted`]); it sends nothing before
    /// the session is confirmed by a sealed datagram of the asker.
    pub reverse: Option<Amount>,
}

/// How much generated data a reverse request asks for ([`Terms::reverse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// This many bytes.
    Bytes(u64),
    /// For this many nanoseconds.
    Time(u64),
}

/// A file as a resumed transfer names it: its size and BLAKE3 hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    /// Bytes.
    pub size: u64,
    /// BLAKE3 hash of the whole file.
    pub hash: [u8; HASH_LEN as usize],
}

/// Bytes of the BLAKE3 trailer of a [`Terms::hashed`] stream.
pub const HASH_LEN: u64 = 32;

/// Longest encoded [`Terms`].
pub const TERMS_MAX: usize = 1 + 8 + HASH_LEN as usize;
/// Bytes of an encoded [`Terms::reverse`] request: flags, kind, amount.
const TERMS_REVERSE_LEN: usize = 1 + 1 + 8;

impl Terms {
    /// Writes these terms into `out` (the first message's payload);
    /// returns how many bytes.
    pub fn encode(self, out: &mut [u8; TERMS_MAX]) -> usize {
        out[0] = u8::from(self.hashed)
            | (u8::from(self.resume.is_some()) << 1)
            | (u8::from(self.tree) << 2)
            | (u8::from(self.reverse.is_some()) << 3);
        if let Some(a) = self.reverse {
            let (kind, v) = match a {
                Amount::Bytes(n) => (0u8, n),
                Amount::Time(ns) => (1u8, ns),
            };
            out[1] = kind;
            out[2..10].copy_from_slice(&v.to_be_bytes());
            return TERMS_REVERSE_LEN;
        }
        match self.resume {
            Some(id) => {
                out[1..9].copy_from_slice(&id.size.to_be_bytes());
                out[9..].copy_from_slice(&id.hash);
                TERMS_MAX
            }
            None => 1,
        }
    }

    /// `None` for unknown flags or a length that does not match them.
    /// A reverse request (flag 8) stands alone: with no other flag, and
    /// the kind of its amount (0: bytes, 1: nanoseconds) and the amount.
    /// Only the one form [`Terms::encode`] writes is accepted: an empty
    /// payload (no flags byte) is refused, as [`MIN_INIT_LEN`] assumes.
    ///
    /// The bytes come from the network (decrypted, but from any holder of
    /// the key): fuzz target `terms`.
    pub fn decode(b: &[u8]) -> Option<Terms> {
        match b {
            [8, kind, rest @ ..] if rest.len() == 8 => {
                let v = u64::from_be_bytes(rest.try_into().expect("8 bytes"));
                let a = match kind {
                    0 => Amount::Bytes(v),
                    1 if v > 0 => Amount::Time(v),
                    _ => return None,
                };
                Some(Terms {
                    reverse: Some(a),
                    ..Terms::default()
                })
            }
            [f, rest @ ..] if f & !7 == 0 => {
                let hashed = f & 1 == 1;
                let tree = f & 4 == 4;
                let resume = match (f & 2 == 2, rest.len()) {
                    (false, 0) => None,
                    (true, n) if n == TERMS_MAX - 1 => Some(FileId {
                        size: u64::from_be_bytes(rest[..8].try_into().expect("8 bytes")),
                        hash: rest[8..].try_into().expect("32 bytes"),
                    }),
                    _ => return None,
                };
                Some(Terms {
                    hashed,
                    resume,
                    tree,
                    reverse: None,
                })
            }
            _ => None,
        }
    }

    /// The payload of the response to a first message with these terms:
    /// with a reverse request one byte, whether it is `granted`; else with
    /// resume the ranges the receiver holds (`held`), else nothing.
    pub fn answer(self, held: Option<&Held>, granted: bool) -> Vec<u8> {
        match self.reverse {
            Some(_) => vec![u8::from(granted)],
            None => held.map(Held::encode).unwrap_or_default(),
        }
    }

    /// Reads the payload of a response to these terms (what
    /// [`Terms::answer`] writes): the ranges the receiver holds (none
    /// unless resumed) and whether it granted a reverse request; `None` if
    /// the payload does not fit the terms. The bytes come from the network
    /// (decrypted, from a holder of the key): fuzz target `terms`.
    pub fn read_answer(self, payload: &[u8]) -> Option<(Held, bool)> {
        match self.resume {
            None if self.reverse.is_some() => match payload {
                [g @ (0 | 1)] => Some((Held::none(), *g == 1)),
                _ => None,
            },
            None => payload.is_empty().then(|| (Held::none(), false)),
            Some(id) => Some((Held::decode(payload, id.size)?, false)),
        }
    }
}

/// The secret behind the address-validation cookies of one receiving
/// process (see "Address validation" in the module docs). Sans-IO: the
/// caller passes the time.
pub struct CookieKey {
    secret: [u8; 32],
}

/// How long a cookie's time slot is (a cookie is valid in its slot and
/// the next).
const COOKIE_SLOT_NS: u64 = 60_000_000_000;

impl CookieKey {
    /// A key from the operating system's random source.
    pub fn generate() -> anyhow::Result<CookieKey> {
        Ok(CookieKey {
            secret: random_key()?,
        })
    }

    fn cookie(&self, src: SocketAddr, session: u32, slot: u64) -> [u8; COOKIE_LEN] {
        let mut h = blake3::Hasher::new_keyed(&self.secret);
        match src.ip() {
            IpAddr::V4(a) => h.update(&a.octets()),
            IpAddr::V6(a) => h.update(&a.octets()),
        };
        h.update(&src.port().to_be_bytes());
        h.update(&session.to_be_bytes());
        h.update(&slot.to_be_bytes());
        h.finalize().as_bytes()[..COOKIE_LEN]
            .try_into()
            .expect("16 bytes")
    }

    /// Whether `dgram`, a first message from `src`, carries a cookie this
    /// key gave `src` for its session within the last one to two minutes
    /// (`now` in nanoseconds of any monotonic clock the caller keeps).
    pub fn valid(&self, src: SocketAddr, dgram: &[u8], now: u64) -> bool {
        self.slot_of(src, dgram, now).is_some()
    }

    /// The time slot whose cookie `dgram` carries, if [`CookieKey::valid`].
    fn slot_of(&self, src: SocketAddr, dgram: &[u8], now: u64) -> Option<u64> {
        let Some((TYPE_HS_INIT, session)) = peek(dgram) else {
            return None;
        };
        if dgram.len() < INIT_NOISE_AT {
            return None;
        }
        let got = &dgram[COMMON_HEADER_LEN + 4..INIT_NOISE_AT];
        let slot = now / COOKIE_SLOT_NS;
        // (Not a secret-dependent early exit that matters: the cookie is
        // for the sender's own address, which it already knows.)
        [slot, slot.wrapping_sub(1)]
            .into_iter()
            .find(|&s| self.cookie(src, session, s) == got)
    }

    /// The [`TYPE_RETRY`] reply to a first message from `src`, or `None`
    /// if `dgram` is not a first message or is shorter than any valid one
    /// ([`MIN_INIT_LEN`]: the reply is never larger than what it answers).
    pub fn retry(&self, src: SocketAddr, dgram: &[u8], now: u64) -> Option<[u8; RETRY_LEN]> {
        let Some((TYPE_HS_INIT, session)) = peek(dgram) else {
            return None;
        };
        if dgram.len() < MIN_INIT_LEN.max(RETRY_LEN) || dgram.len() > MAX_HANDSHAKE_LEN {
            return None;
        }
        let mut out = [0u8; RETRY_LEN];
        header(&mut out, TYPE_RETRY, session);
        out[COMMON_HEADER_LEN + 4..].copy_from_slice(&self.cookie(
            src,
            session,
            now / COOKIE_SLOT_NS,
        ));
        Some(out)
    }
}

/// The sender's side of the handshake.
pub struct Initiator {
    keys: Keys,
    terms: Terms,
    hs: HandshakeState,
    session: u32,
    init: Vec<u8>,
}

impl Initiator {
    /// Starts a session with a random id and no terms.
    pub fn new(keys: &Keys) -> anyhow::Result<Initiator> {
        Initiator::with_terms(keys, Terms::default())
    }

    /// Starts a session with a random id, announcing `terms` in the first
    /// message (encrypted under the key, like everything after it).
    pub fn with_terms(keys: &Keys, terms: Terms) -> anyhow::Result<Initiator> {
        let session = getrandom::u32().map_err(|e| anyhow::anyhow!("reading random bytes: {e}"))?;
        let (hs, init) = Initiator::first_message(keys, terms, session, &[0; COOKIE_LEN])?;
        Ok(Initiator {
            keys: keys.clone(),
            terms,
            hs,
            session,
            init,
        })
    }

    /// A new handshake state (a new ephemeral key) and its first message,
    /// the session and cookie bound into it through the prologue.
    fn first_message(
        keys: &Keys,
        terms: Terms,
        session: u32,
        cookie: &[u8],
    ) -> anyhow::Result<(HandshakeState, Vec<u8>)> {
        let pro = prologue(session, cookie);
        let mut hs = builder(keys, &pro, true)?
            .build_initiator()
            .map_err(|e| anyhow::anyhow!("starting the Noise handshake: {e}"))?;
        let mut init = vec![0u8; MAX_HANDSHAKE_LEN];
        header(&mut init, TYPE_HS_INIT, session);
        init[COMMON_HEADER_LEN + 4..INIT_NOISE_AT].copy_from_slice(cookie);
        let mut t = [0u8; TERMS_MAX];
        let tn = terms.encode(&mut t);
        let n = hs
            .write_message(&t[..tn], &mut init[INIT_NOISE_AT..])
            .map_err(|e| anyhow::anyhow!("writing the Noise handshake: {e}"))?;
        init.truncate(INIT_NOISE_AT + n);
        Ok((hs, init))
    }

    /// The session id.
    pub fn session(&self) -> u32 {
        self.session
    }

    /// The first message, to send (again, until answered).
    pub fn datagram(&self) -> &[u8] {
        &self.init
    }

    /// Takes the cookie of this session's address-validation reply into
    /// the first message (send [`Initiator::datagram`] again); false for
    /// anything else.
    ///
    /// The cookie is bound into the handshake (the prologue), so taking it
    /// writes a new first message with a new ephemeral key; a repeated
    /// retry with the same cookie changes nothing.
    pub fn on_retry(&mut self, dgram: &[u8]) -> bool {
        if dgram.len() != RETRY_LEN || peek(dgram) != Some((TYPE_RETRY, self.session)) {
            return false;
        }
        let cookie = &dgram[COMMON_HEADER_LEN + 4..];
        if self.init[COMMON_HEADER_LEN + 4..INIT_NOISE_AT] == *cookie {
            return true;
        }
        match Initiator::first_message(&self.keys, self.terms, self.session, cookie) {
            Ok((hs, init)) => {
                self.hs = hs;
                self.init = init;
                true
            }
            Err(_) => false,
        }
    }

    /// The channel, if `dgram` is this session's valid response; `None`
    /// for anything else.
    ///
    /// A response that fails authentication is ignored and the handshake
    /// goes on (`snow` restores its state when a message fails to
    /// decrypt), so that an on-path attacker who sees the session id and
    /// injects garbage responses cannot make the sender start over again
    /// and again. Only a response that authenticates (its sender holds the
    /// key) but carries a payload this version does not accept makes the
    /// initiator start over with a new session (new id, new ephemeral
    /// key): send [`Initiator::datagram`] again.
    pub fn on_response(&mut self, dgram: &[u8]) -> Option<Channel> {
        if peek(dgram) != Some((TYPE_HS_RESP, self.session))
            || dgram.len() > MAX_RESPONSE_LEN
            || dgram.len() < RESP_NOISE_AT
        {
            return None;
        }
        let mut scratch = [0u8; MAX_HELD_RANGES * RANGE_LEN];
        let read = self.hs.read_message(&dgram[RESP_NOISE_AT..], &mut scratch);
        let Ok(n) = read else {
            return None;
        };
        // The payload: empty, or with resume the ranges of the file the
        // receiver holds (see `Held::decode`); with a reverse request one
        // byte, whether it is granted (`Terms::read_answer`).
        let read = match self.hs.is_handshake_finished() {
            true => self.terms.read_answer(&scratch[..n]),
            false => None,
        };
        let Some((held, granted)) = read else {
            if let Ok(fresh) = Initiator::with_terms(&self.keys, self.terms) {
                *self = fresh;
            }
            return None;
        };
        // Done: hand the state over (what is left is an unused initiator).
        let session = self.session;
        let fresh = Initiator::with_terms(&self.keys, self.terms).ok()?;
        let mut done = std::mem::replace(self, fresh);
        let mut c = Channel::from_handshake(&mut done.hs, session);
        c.terms = done.terms;
        c.held = held;
        c.granted = granted;
        Some(c)
    }
}

/// A first message that authenticated: its session, the responder's
/// handshake state and the sender's terms.
struct ReadInit {
    session: u32,
    hs: HandshakeState,
    terms: Terms,
}

/// Reads a first message under `keys` (no state kept): `None` unless it is
/// authentic, announces terms this version knows and, with key pairs,
/// comes from a sender whose public key `keys` allow. (With a pre-shared
/// key alone this is no Diffie-Hellman; with key pairs two, `es` and `ss`,
/// done only for a sender that has shown its address with a cookie.)
fn read_init(keys: &Keys, dgram: &[u8]) -> Option<ReadInit> {
    let (kind, session) = peek(dgram)?;
    if kind != TYPE_HS_INIT || dgram.len() > MAX_HANDSHAKE_LEN || dgram.len() < INIT_NOISE_AT {
        return None;
    }
    let pro = prologue(session, &dgram[COMMON_HEADER_LEN + 4..INIT_NOISE_AT]);
    let mut hs = builder(keys, &pro, false).ok()?.build_responder().ok()?;
    let mut scratch = [0u8; 64];
    let m = hs
        .read_message(&dgram[INIT_NOISE_AT..], &mut scratch)
        .ok()?;
    if let Some((_, allowed)) = &keys.pair {
        // The sender's static key, authenticated by the message (`ss`).
        let them = PublicKey(hs.get_remote_static()?.try_into().ok()?);
        if !allowed.allows(&them) {
            return None;
        }
    }
    let terms = Terms::decode(&scratch[..m])?;
    Some(ReadInit { session, hs, terms })
}

/// Whether `dgram` is a first message that authenticates under `keys` (a
/// server checks this before it gives a client any state).
pub fn authentic_init(keys: &Keys, dgram: &[u8]) -> bool {
    read_init(keys, dgram).is_some()
}

/// The receiver's side: answers a valid first message. Returns the session,
/// the response to send (and to repeat for a repeated first message) and
/// the channel, whose [`Channel::terms`] are the sender's; `None` if `dgram`
/// is not a valid first message under `keys` (or announces terms this
/// version does not know, or comes from a sender `keys` do not allow). For
/// a sender that asks to resume, `offer` says which byte ranges of the
/// named file the receiver holds (nothing for the whole file), and the
/// channel keeps them in [`Channel::held`].
pub fn respond(
    keys: &Keys,
    dgram: &[u8],
    offer: &mut dyn FnMut(&FileId) -> Held,
) -> Option<(u32, Vec<u8>, Channel)> {
    answer(read_init(keys, dgram)?, offer, false)
}

/// Writes the response to a first message [`read_init`] accepted.
/// A reverse request is granted only with `allow_reverse`; either way the
/// response says which (one byte), so that the asker fails with a clear
/// error instead of waiting for data that will not come.
fn answer(
    read: ReadInit,
    offer: &mut dyn FnMut(&FileId) -> Held,
    allow_reverse: bool,
) -> Option<(u32, Vec<u8>, Channel)> {
    let ReadInit {
        session,
        mut hs,
        terms,
    } = read;
    let held = terms.resume.map(|id| {
        let h = offer(&id);
        Held::from_ranges(h.ranges().to_vec(), id.size)
    });
    let granted = terms.reverse.is_some() && allow_reverse;
    let payload = terms.answer(held.as_ref(), granted);
    let mut resp = vec![0u8; MAX_RESPONSE_LEN];
    header(&mut resp, TYPE_HS_RESP, session);
    let n = hs
        .write_message(&payload, &mut resp[RESP_NOISE_AT..])
        .ok()?;
    resp.truncate(RESP_NOISE_AT + n);
    if !hs.is_handshake_finished() {
        return None;
    }
    let mut c = Channel::from_handshake(&mut hs, session);
    c.terms = terms;
    c.held = held.unwrap_or_default();
    c.granted = granted;
    Some((session, resp, c))
}

/// What a receiver does with a first message ([`Responder::on_init`]).
pub enum InitOutcome {
    /// Answer with this address-validation reply (no state kept).
    Retry([u8; RETRY_LEN]),
    /// A first message already answered (its ephemeral key was seen within
    /// its cookie's lifetime): a replay, or the sender repeating itself
    /// because the response was lost. The caller repeats the stored
    /// response only to the session's own address, and otherwise drops it.
    Repeated(u32),
    /// A new, authentic, fresh first message: send the response. The
    /// session is *pending*: it may take no slot, displace no session and
    /// touch no resume state until its first sealed datagram opens
    /// ([`Channel::authenticates`]), which only the key holder that wrote
    /// this first message can produce.
    Accepted {
        /// The session id.
        session: u32,
        /// The response (keep it to repeat it).
        response: Vec<u8>,
        /// The responder's end of the session.
        channel: Box<Channel>,
    },
    /// Not answered: too short, no valid cookie and too short for a
    /// retry, failed authentication, or the replay filter is full.
    Dropped,
}

/// The receiver's side of the handshake: address validation, then a
/// filter of first messages already accepted, then the Noise handshake.
///
/// Why a replay filter keyed by the ephemeral key, and no timestamp: with
/// one shared key and no peer identity there is no "peer" to keep
/// WireGuard's greatest timestamp for, and a timestamp would need the two
/// clocks to agree. The cookie gives the freshness instead: it is a MAC
/// under this process's secret over the sender's address, port, session
/// and the receiver's own one-minute time slot, and it is bound into the
/// Noise message (the prologue), so a first message is only ever valid
/// from the address it was written for and for at most two minutes of the
/// receiver's clock. Within that lifetime the filter remembers the
/// ephemeral key of every first message accepted, and refuses it again;
/// an entry is forgotten when its cookie expires. Memory is bounded
/// ([`Responder::FILTER_MAX`] keys); only authentic first messages (made
/// with the key) enter it, and when it is full new sessions wait for
/// entries to expire.
pub struct Responder {
    cookies: CookieKey,
    /// Ephemeral key of each first message accepted, with its cookie slot.
    seen: std::collections::HashMap<[u8; 32], u64>,
    /// Grant reverse requests ([`Terms::reverse`]).
    reverse: bool,
}

impl Responder {
    /// Most first messages remembered at once (about 3 MB at most).
    pub const FILTER_MAX: usize = 65_536;

    /// A responder with a new cookie secret.
    pub fn generate() -> anyhow::Result<Responder> {
        Ok(Responder {
            cookies: CookieKey::generate()?,
            seen: std::collections::HashMap::new(),
            reverse: false,
        })
    }

    /// Grant reverse requests ([`Terms::reverse`]) from now on (default:
    /// refuse them, saying so in the response).
    pub fn allow_reverse(&mut self, yes: bool) {
        self.reverse = yes;
    }

    /// Handles a first message from `src` at `now` (nanoseconds of a
    /// monotonic clock the caller keeps); `offer` as for [`respond`].
    pub fn on_init(
        &mut self,
        keys: &Keys,
        src: SocketAddr,
        dgram: &[u8],
        now: u64,
        offer: &mut dyn FnMut(&FileId) -> Held,
    ) -> InitOutcome {
        if dgram.len() < MIN_INIT_LEN || dgram.len() > MAX_HANDSHAKE_LEN {
            return InitOutcome::Dropped;
        }
        let Some(slot) = self.cookies.slot_of(src, dgram, now) else {
            return match self.cookies.retry(src, dgram, now) {
                Some(r) => InitOutcome::Retry(r),
                None => InitOutcome::Dropped,
            };
        };
        // Forget what no cookie can still make valid.
        let current = now / COOKIE_SLOT_NS;
        if self.seen.len() >= Self::FILTER_MAX / 2 {
            self.seen.retain(|_, s| s.saturating_add(1) >= current);
        }
        let Some(read) = read_init(keys, dgram) else {
            return InitOutcome::Dropped;
        };
        let session = read.session;
        let e: [u8; 32] = dgram[INIT_NOISE_AT..INIT_NOISE_AT + 32]
            .try_into()
            .expect("32 bytes");
        if let Some(&s) = self.seen.get(&e) {
            if s.saturating_add(1) >= current {
                return InitOutcome::Repeated(session);
            }
        }
        if self.seen.len() >= Self::FILTER_MAX {
            return InitOutcome::Dropped;
        }
        match answer(read, offer, self.reverse) {
            Some((session, response, channel)) => {
                self.seen.insert(e, slot);
                InitOutcome::Accepted {
                    session,
                    response,
                    channel: Box::new(channel),
                }
            }
            None => InitOutcome::Dropped,
        }
    }

    /// Whether `dgram` from `src` carries a valid cookie (a server that
    /// is full answers such a first message with nothing).
    pub fn cookie_valid(&self, src: SocketAddr, dgram: &[u8], now: u64) -> bool {
        self.cookies.valid(src, dgram, now)
    }

    /// First messages remembered by the replay filter.
    pub fn remembered(&self) -> usize {
        self.seen.len()
    }
}

/// One end of an established session: seals what it sends, opens what it
/// receives, in place.
///
/// The keys come from the handshake's split (Noise §5 `Split()`: one key
/// per direction), each through [`data_key`] to an AEGIS-128L key and
/// through [`bulk_key`] to an AEGIS-128X4 key (plaintexts of [`BULK_MIN`]
/// bytes or more), used as
/// Noise's `CipherState` uses its keys (nonce: the 64-bit counter, here
/// big-endian in the last 8 of AEGIS's 16 nonce bytes; empty associated
/// data), but without copying: the caller writes the plaintext where the
/// ciphertext goes.
pub struct Channel {
    terms: Terms,
    held: Held,
    granted: bool,
    peer: Option<PublicKey>,
    seal_key: DirKeys,
    open_key: DirKeys,
    session: u32,
    next_nonce: u64,
    replay: ReplayWindow,
}

fn aead_nonce(n: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[8..].copy_from_slice(&n.to_be_bytes());
    b
}

/// The AEGIS-128L key of one direction: the first 16 bytes of BLAKE3's
/// key derivation (its `derive_key` mode, with a context string of its own)
/// over that direction's 32-byte Noise split key.
fn data_key(split: &[u8; 32]) -> [u8; 16] {
    let k = blake3::derive_key("dropless 2026-11-28 sealed datagrams AEGIS-128L key", split);
    let mut out = [0u8; 16];
    out.copy_from_slice(&k[..16]);
    out
}

/// The AEGIS-128X4 key of one direction (plaintexts of [`BULK_MIN`] bytes
/// or more): as [`data_key`], under another context string, so the two
/// variants never share a key.
fn bulk_key(split: &[u8; 32]) -> [u8; 16] {
    let k = blake3::derive_key(
        "dropless 2026-11-29 sealed datagrams AEGIS-128X4 key",
        split,
    );
    let mut out = [0u8; 16];
    out.copy_from_slice(&k[..16]);
    out
}

/// One direction's keys: AEGIS-128L for short plaintexts, AEGIS-128X4 for
/// long ones.
#[derive(Clone)]
struct DirKeys {
    short: [u8; 16],
    bulk: [u8; 16],
}

impl DirKeys {
    fn from_split(split: &[u8; 32]) -> DirKeys {
        DirKeys {
            short: data_key(split),
            bulk: bulk_key(split),
        }
    }

    /// Encrypts `body` in place; returns the tag.
    fn seal(&self, nonce: u64, body: &mut [u8]) -> [u8; TAG_LEN] {
        let n = aead_nonce(nonce);
        if body.len() >= BULK_MIN {
            Aegis128X4::<TAG_LEN>::new(&self.bulk, &n).encrypt_in_place(body, &[])
        } else {
            Aegis128L::<TAG_LEN>::new(&self.short, &n).encrypt_in_place(body, &[])
        }
    }

    /// Decrypts `body` in place if `tag` verifies.
    fn open(&self, nonce: u64, body: &mut [u8], tag: &[u8; TAG_LEN]) -> bool {
        let n = aead_nonce(nonce);
        if body.len() >= BULK_MIN {
            Aegis128X4::<TAG_LEN>::new(&self.bulk, &n)
                .decrypt_in_place(body, tag, &[])
                .is_ok()
        } else {
            Aegis128L::<TAG_LEN>::new(&self.short, &n)
                .decrypt_in_place(body, tag, &[])
                .is_ok()
        }
    }
}

impl Channel {
    fn from_handshake(hs: &mut HandshakeState, session: u32) -> Channel {
        let (i2r, r2i) = hs.dangerously_get_raw_split();
        let (seal_key, open_key) = if hs.is_initiator() {
            (DirKeys::from_split(&i2r), DirKeys::from_split(&r2i))
        } else {
            (DirKeys::from_split(&r2i), DirKeys::from_split(&i2r))
        };
        let peer = hs
            .get_remote_static()
            .and_then(|k| k.try_into().ok())
            .map(PublicKey);
        Channel {
            terms: Terms::default(),
            held: Held::none(),
            granted: false,
            peer,
            seal_key,
            open_key,
            session,
            next_nonce: 0,
            replay: ReplayWindow::default(),
        }
    }

    /// The session id.
    pub fn session(&self) -> u32 {
        self.session
    }

    /// With key pairs, the other end's public key (authenticated by the
    /// handshake); `None` with a pre-shared key alone.
    pub fn peer(&self) -> Option<PublicKey> {
        self.peer
    }

    /// What the sender announced in the handshake.
    pub fn terms(&self) -> Terms {
        self.terms
    }

    /// Whether the receiver grants the reverse request of
    /// [`Terms::reverse`] (false without one).
    pub fn reverse_granted(&self) -> bool {
        self.granted
    }

    /// The byte ranges of the file the receiver holds from an interrupted
    /// transfer (nothing for a transfer that is not resumed): the stream
    /// carries the rest ([`crate::held::Gaps`]).
    pub fn held(&self) -> &Held {
        &self.held
    }

    /// Seals in place: `buf[SEAL_HEADER_LEN..SEAL_HEADER_LEN + plain_len]`
    /// holds a plaintext datagram; the header goes in front and the tag
    /// behind (`buf` must hold `plain_len + SEAL_OVERHEAD` bytes). Returns
    /// the sealed length.
    pub fn seal_in_place(&mut self, buf: &mut [u8], plain_len: usize) -> anyhow::Result<usize> {
        let n = plain_len + SEAL_OVERHEAD;
        if buf.len() < n {
            bail!("sealing: {} bytes of room for {n}", buf.len());
        }
        let nonce = self.next_nonce;
        self.next_nonce += 1;
        header(buf, TYPE_SEALED, self.session);
        buf[8..16].copy_from_slice(&nonce.to_be_bytes());
        let (body, rest) = buf[SEAL_HEADER_LEN..].split_at_mut(plain_len);
        let tag = self.seal_key.seal(nonce, body);
        rest[..TAG_LEN].copy_from_slice(&tag);
        Ok(n)
    }

    /// Seals the plaintext datagram `plain` into `out` (which must hold
    /// `plain.len() + SEAL_OVERHEAD` bytes); returns the sealed length.
    pub fn seal(&mut self, plain: &[u8], out: &mut [u8]) -> anyhow::Result<usize> {
        let n = plain.len() + SEAL_OVERHEAD;
        if out.len() < n {
            bail!("sealing: {} bytes of room for {n}", out.len());
        }
        out[SEAL_HEADER_LEN..SEAL_HEADER_LEN + plain.len()].copy_from_slice(plain);
        self.seal_in_place(out, plain.len())
    }

    /// Opens a sealed datagram of this session in place; returns the
    /// plaintext (a part of `dgram`), or `None` if the datagram is not this
    /// session's, is a replay or fails authentication (`dgram` may then
    /// hold garbage).
    pub fn open_in_place<'a>(&mut self, dgram: &'a mut [u8]) -> Option<&'a [u8]> {
        if dgram.len() < SEAL_OVERHEAD || peek(dgram) != Some((TYPE_SEALED, self.session)) {
            return None;
        }
        let nonce = u64::from_be_bytes(dgram[8..16].try_into().expect("8 bytes"));
        if !self.replay.fresh(nonce) {
            return None;
        }
        let body_len = dgram.len() - SEAL_OVERHEAD;
        let (body, tag) = dgram[SEAL_HEADER_LEN..].split_at_mut(body_len);
        let tag: &[u8; TAG_LEN] = (&*tag).try_into().ok()?;
        if !self.open_key.open(nonce, body, tag) {
            return None;
        }
        self.replay.mark(nonce);
        Some(body)
    }

    /// Whether `dgram` is a sealed datagram of this session that opens
    /// (on a copy; nothing is marked in the replay window): the key
    /// confirmation of a pending session ([`InitOutcome::Accepted`]).
    pub fn authenticates(&self, dgram: &[u8]) -> bool {
        if dgram.len() < SEAL_OVERHEAD || peek(dgram) != Some((TYPE_SEALED, self.session)) {
            return false;
        }
        let nonce = u64::from_be_bytes(dgram[8..16].try_into().expect("8 bytes"));
        let mut copy = dgram[SEAL_HEADER_LEN..].to_vec();
        let (body, tag) = copy.split_at_mut(dgram.len() - SEAL_OVERHEAD);
        let Ok(tag) = <&[u8; TAG_LEN]>::try_from(&*tag) else {
            return false;
        };
        self.replay.fresh(nonce) && self.open_key.open(nonce, body, tag)
    }

    /// [`Channel::open_in_place`] on a copy of `dgram` in `out` (which must
    /// hold the sealed datagram; the tests' convenience).
    #[cfg(test)]
    fn open<'a>(&mut self, dgram: &[u8], out: &'a mut [u8]) -> Option<&'a [u8]> {
        let buf = out.get_mut(..dgram.len())?;
        buf.copy_from_slice(dgram);
        self.open_in_place(buf)
    }
}

/// Which nonces have been accepted: every nonce above the highest seen is
/// new; of the [`ReplayWindow::WIDTH`] below it a bitmap remembers which
/// came; anything older is refused (as WireGuard and IPsec do).
#[derive(Clone, Debug)]
pub struct ReplayWindow {
    /// One more than the highest nonce accepted (0: none yet).
    top: u64,
    bits: Box<[u64; ReplayWindow::WORDS]>,
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow {
            top: 0,
            bits: Box::new([0; ReplayWindow::WORDS]),
        }
    }
}

impl ReplayWindow {
    const WORDS: usize = 128;
    /// Nonces below the highest one accepted that are still told apart
    /// (8192: a reordering of that many datagrams, 12 MB of 1.4-kB packets).
    pub const WIDTH: u64 = 64 * Self::WORDS as u64;

    /// True if `n` has not been accepted and is not too old.
    pub fn fresh(&self, n: u64) -> bool {
        if n >= self.top {
            return true;
        }
        if self.top - n > Self::WIDTH {
            return false;
        }
        let i = (n % Self::WIDTH) as usize;
        self.bits[i / 64] & (1 << (i % 64)) == 0
    }

    /// Records `n` as accepted (call only after [`ReplayWindow::fresh`]
    /// and a verified tag).
    pub fn mark(&mut self, n: u64) {
        if n >= self.top {
            // Clear the slots the window moves over.
            let advance = n + 1 - self.top;
            if advance >= Self::WIDTH {
                self.bits.fill(0);
            } else {
                for k in self.top..=n {
                    let i = (k % Self::WIDTH) as usize;
                    self.bits[i / 64] &= !(1 << (i % 64));
                }
            }
            self.top = n + 1;
        }
        let i = (n % Self::WIDTH) as usize;
        self.bits[i / 64] |= 1 << (i % 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(k: u8) -> (Channel, Channel) {
        let psk = Keys::shared(Psk::from_bytes([k; 32]));
        let mut i = Initiator::new(&psk).unwrap();
        let (session, resp, rx) =
            respond(&psk, i.datagram(), &mut |_| Held::none()).expect("valid first message");
        assert_eq!(session, i.session());
        let tx = i.on_response(&resp).expect("valid response");
        (tx, rx)
    }

    #[test]
    fn sealed_datagrams_open_once_and_only_unaltered() {
        let (mut tx, mut rx) = pair(7);
        let plain = b"DL\x02\x01 a plaintext dropless datagram";
        let mut sealed = [0u8; 128];
        let n = tx.seal(plain, &mut sealed).unwrap();
        assert_eq!(n, plain.len() + SEAL_OVERHEAD);
        assert!(
            !sealed[..n].windows(9).any(|w| w == b"plaintext"),
            "encrypted"
        );
        // Every single altered byte, and every truncation, fails.
        for i in 0..n {
            let mut bad = sealed;
            bad[i] ^= 0x20;
            assert!(
                rx.open(&bad[..n], &mut [0u8; 128]).is_none(),
                "byte {i} altered"
            );
        }
        for len in 0..n {
            assert!(
                rx.open(&sealed[..len], &mut [0u8; 128]).is_none(),
                "{len} bytes"
            );
        }
        let mut out = [0u8; 128];
        assert_eq!(rx.open(&sealed[..n], &mut out), Some(&plain[..]));
        // A replay is refused.
        assert!(rx.open(&sealed[..n], &mut out).is_none());
        // The other direction has its own key: the sender cannot open its own.
        let m = tx.seal(plain, &mut sealed).unwrap();
        assert!(tx.open(&sealed[..m], &mut out).is_none());
        assert!(rx.open(&sealed[..m], &mut out).is_some());
        let k = rx.seal(b"an ack", &mut sealed).unwrap();
        assert_eq!(tx.open(&sealed[..k], &mut out), Some(&b"an ack"[..]));
    }

    #[test]
    fn a_cookie_proves_the_address_and_only_that_address() {
        let psk = Keys::shared(Psk::from_bytes([5; 32]));
        let key = CookieKey::generate().unwrap();
        let me: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        let other: SocketAddr = "192.0.2.1:4001".parse().unwrap();
        let now = 1_000 * COOKIE_SLOT_NS + 7;
        let mut i = Initiator::new(&psk).unwrap();
        assert!(!key.valid(me, i.datagram(), now), "no cookie yet");
        let retry = key.retry(me, i.datagram(), now).unwrap();
        assert!(retry.len() < i.datagram().len(), "no amplification");
        // Another session's retry is not taken.
        let mut wrong = retry;
        wrong[4] ^= 1;
        assert!(!i.on_retry(&wrong));
        assert!(i.on_retry(&retry));
        assert!(key.valid(me, i.datagram(), now));
        assert!(
            key.valid(me, i.datagram(), now + COOKIE_SLOT_NS),
            "the next slot"
        );
        assert!(
            !key.valid(me, i.datagram(), now + 2 * COOKIE_SLOT_NS),
            "expired"
        );
        assert!(!key.valid(other, i.datagram(), now), "another port");
        assert!(
            !CookieKey::generate().unwrap().valid(me, i.datagram(), now),
            "another key"
        );
        // The cookie does not disturb the handshake.
        let (_, resp, _) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        assert!(i.on_response(&resp).is_some());
    }

    #[test]
    fn a_first_message_is_accepted_once_and_only_with_its_own_cookie() {
        let psk = Keys::shared(Psk::from_bytes([12; 32]));
        let mut r = Responder::generate().unwrap();
        let me: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        let other: SocketAddr = "192.0.2.2:4000".parse().unwrap();
        let now = 50 * COOKIE_SLOT_NS;
        let mut i = Initiator::new(&psk).unwrap();
        let InitOutcome::Retry(retry) =
            r.on_init(&psk, me, i.datagram(), now, &mut |_| Held::none())
        else {
            panic!("a retry first");
        };
        assert!(retry.len() <= i.datagram().len());
        assert!(i.on_retry(&retry));
        let mine = i.datagram().to_vec();
        // Another address pastes its own cookie in: the Noise message
        // fails (the cookie is in the prologue).
        let InitOutcome::Retry(theirs) = r.on_init(&psk, other, &mine, now, &mut |_| Held::none())
        else {
            panic!("a retry for the other address");
        };
        let mut pasted = mine.clone();
        pasted[COMMON_HEADER_LEN + 4..INIT_NOISE_AT]
            .copy_from_slice(&theirs[COMMON_HEADER_LEN + 4..]);
        assert!(matches!(
            r.on_init(&psk, other, &pasted, now, &mut |_| Held::none()),
            InitOutcome::Dropped
        ));
        // The real one: accepted once, then a repeat.
        let InitOutcome::Accepted { response, .. } =
            r.on_init(&psk, me, &mine, now, &mut |_| Held::none())
        else {
            panic!("accepted");
        };
        assert!(matches!(
            r.on_init(&psk, me, &mine, now + 1, &mut |_| Held::none()),
            InitOutcome::Repeated(s) if s == i.session()
        ));
        assert_eq!(r.remembered(), 1);
        assert!(i.on_response(&response).is_some());
        // Two slots later the cookie has expired: a retry, nothing more.
        assert!(matches!(
            r.on_init(&psk, me, &mine, now + 2 * COOKIE_SLOT_NS, &mut |_| {
                Held::none()
            }),
            InitOutcome::Retry(_)
        ));
        // Short datagrams get nothing; no retry is larger than its input.
        for len in 0..MIN_INIT_LEN {
            let mut d = mine[..len.min(mine.len())].to_vec();
            d.resize(len, 0);
            assert!(matches!(
                r.on_init(&psk, other, &d, now, &mut |_| Held::none()),
                InitOutcome::Dropped
            ));
        }
    }

    #[test]
    fn a_pending_session_is_confirmed_only_by_the_key_holders_datagram() {
        let psk = Keys::shared(Psk::from_bytes([13; 32]));
        let mut i = Initiator::new(&psk).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        let mut tx = i.on_response(&resp).unwrap();
        let mut d = [0u8; 64];
        let n = tx.seal(b"first", &mut d).unwrap();
        let mut bad = d;
        bad[n - 1] ^= 1;
        assert!(!rx.authenticates(&bad[..n]));
        assert!(rx.authenticates(&d[..n]));
        // Another session's datagram does not confirm this one.
        let (mut other, _) = pair(13);
        let m = other.seal(b"first", &mut d).unwrap();
        assert!(!rx.authenticates(&d[..m]));
    }

    /// Key pairs: a receiver's end and a sender's end (its own key `k`).
    fn pair_keys(k: u8, allowed: &[u8], psk: Option<u8>) -> (Keys, Keys) {
        let recv_key = PrivateKey::from_bytes([200; 32]);
        let allowed = AllowedPeers::new(
            allowed
                .iter()
                .map(|&a| PrivateKey::from_bytes([a; 32]).public())
                .collect(),
        );
        let psk = psk.map(|p| Psk::from_bytes([p; 32]));
        (
            Keys::to_peer(
                PrivateKey::from_bytes([k; 32]),
                recv_key.public(),
                psk.clone(),
            ),
            Keys::from_peers(recv_key, allowed, psk),
        )
    }

    /// A listed sender's first message with no terms at all (an empty
    /// payload; with key pairs it is long enough to pass [`MIN_INIT_LEN`])
    /// is refused, as one with the terms' flags byte is accepted.
    #[test]
    fn a_first_message_without_terms_is_refused() {
        let (alice, receiver) = pair_keys(1, &[1], None);
        let session = 7;
        let cookie = [0u8; COOKIE_LEN];
        for (payload, accepted) in [(&[][..], false), (&[0u8][..], true)] {
            let mut hs = builder(&alice, &prologue(session, &cookie), true)
                .unwrap()
                .build_initiator()
                .unwrap();
            let mut init = vec![0u8; MAX_HANDSHAKE_LEN];
            header(&mut init, TYPE_HS_INIT, session);
            let n = hs
                .write_message(payload, &mut init[INIT_NOISE_AT..])
                .unwrap();
            init.truncate(INIT_NOISE_AT + n);
            assert!(init.len() >= MIN_INIT_LEN);
            let r = respond(&receiver, &init, &mut |_| Held::none());
            assert_eq!(r.is_some(), accepted, "payload {payload:?}");
        }
    }

    #[test]
    fn key_pairs_admit_only_the_listed_senders() {
        let me: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        let now = 70 * COOKIE_SLOT_NS;
        for psk in [None, Some(21)] {
            let (alice, receiver) = pair_keys(1, &[1, 2], psk);
            let (mallory, _) = pair_keys(3, &[], psk);
            assert_eq!(
                receiver.pattern(),
                if psk.is_some() {
                    NOISE_PATTERN_IK_PSK
                } else {
                    NOISE_PATTERN_IK
                }
            );
            let mut r = Responder::generate().unwrap();
            // Mallory (a key not listed): a retry no larger than her
            // datagram, then, with the cookie, nothing at all and no state.
            let mut m = Initiator::new(&mallory).unwrap();
            let InitOutcome::Retry(retry) =
                r.on_init(&receiver, me, m.datagram(), now, &mut |_| Held::none())
            else {
                panic!("a retry first");
            };
            assert!(retry.len() <= m.datagram().len());
            assert!(m.on_retry(&retry));
            for _ in 0..3 {
                assert!(matches!(
                    r.on_init(&receiver, me, m.datagram(), now, &mut |_| Held::none()),
                    InitOutcome::Dropped
                ));
            }
            assert_eq!(r.remembered(), 0, "no state for a key not listed");
            assert!(!authentic_init(&receiver, m.datagram()));
            // Alice (listed): accepted, once; the channel names her key.
            let mut a = Initiator::new(&alice).unwrap();
            let InitOutcome::Retry(retry) =
                r.on_init(&receiver, me, a.datagram(), now, &mut |_| Held::none())
            else {
                panic!("a retry first");
            };
            assert!(a.on_retry(&retry));
            let InitOutcome::Accepted {
                response, channel, ..
            } = r.on_init(&receiver, me, a.datagram(), now, &mut |_| Held::none())
            else {
                panic!("alice accepted");
            };
            assert_eq!(channel.peer(), alice.public());
            assert!(matches!(
                r.on_init(&receiver, me, a.datagram(), now + 1, &mut |_| Held::none()),
                InitOutcome::Repeated(_)
            ));
            let mut tx = a
                .on_response(&response)
                .expect("alice's handshake completes");
            assert_eq!(tx.peer(), receiver.public());
            // Key confirmation: only alice's sealed datagram confirms.
            let mut d = [0u8; 64];
            let n = tx.seal(b"first", &mut d).unwrap();
            assert!(channel.authenticates(&d[..n]));
            let mut bad = d;
            bad[n - 1] ^= 1;
            assert!(!channel.authenticates(&bad[..n]));
        }
    }

    #[test]
    fn key_pairs_fail_with_the_wrong_receiver_key_or_psk() {
        let (alice, receiver) = pair_keys(1, &[1], Some(5));
        // The pre-shared key differs: the first message does not read.
        let (alice_other_psk, _) = pair_keys(1, &[1], Some(6));
        assert!(respond(
            &receiver,
            Initiator::new(&alice).unwrap().datagram(),
            &mut |_| Held::none()
        )
        .is_some());
        // (IKpsk2 mixes the PSK in with the response: the first message
        // reads, the response fails at the sender, nothing completes.)
        let mut i = Initiator::new(&alice_other_psk).unwrap();
        if let Some((_, resp, _)) = respond(&receiver, i.datagram(), &mut |_| Held::none()) {
            assert!(i.on_response(&resp).is_none(), "another PSK completed");
        }
        // Without the PSK at all: another pattern, nothing reads.
        let (alice_no_psk, _) = pair_keys(1, &[1], None);
        assert!(respond(
            &receiver,
            Initiator::new(&alice_no_psk).unwrap().datagram(),
            &mut |_| Held::none()
        )
        .is_none());
        // A sender that names another receiver's key.
        let wrong = Keys::to_peer(
            PrivateKey::from_bytes([1; 32]),
            PrivateKey::from_bytes([201; 32]).public(),
            Some(Psk::from_bytes([5; 32])),
        );
        assert!(respond(
            &receiver,
            Initiator::new(&wrong).unwrap().datagram(),
            &mut |_| Held::none()
        )
        .is_none());
        // Pre-shared and key-pair ends do not talk.
        let shared = Keys::shared(Psk::from_bytes([5; 32]));
        assert!(respond(
            &receiver,
            Initiator::new(&shared).unwrap().datagram(),
            &mut |_| Held::none()
        )
        .is_none());
        assert!(respond(
            &shared,
            Initiator::new(&alice).unwrap().datagram(),
            &mut |_| Held::none()
        )
        .is_none());
        // The largest first message (resume terms) fits the framing.
        let terms = Terms {
            hashed: true,
            tree: false,
            resume: Some(FileId {
                size: 1,
                hash: [0; 32],
            }),
            reverse: None,
        };
        let i = Initiator::with_terms(&alice, terms).unwrap();
        assert!(i.datagram().len() <= MAX_HANDSHAKE_LEN);
        let (_, _, rx) = respond(&receiver, i.datagram(), &mut |_| Held::none()).unwrap();
        assert_eq!(rx.terms(), terms);
    }

    /// Random and mutated first messages of the key-pair handshake (the
    /// `handshake_ik` fuzz target's input, 20,000 of them): nothing panics
    /// and nothing but the real message is accepted.
    #[test]
    fn random_and_mutated_key_pair_first_messages_open_nothing() {
        let (alice, receiver) = pair_keys(1, &[1], None);
        let (mallory, _) = pair_keys(3, &[], None);
        let real = Initiator::new(&alice).unwrap().datagram().to_vec();
        let theirs = Initiator::new(&mallory).unwrap().datagram().to_vec();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        };
        for k in 0..20_000u32 {
            let mut d = if k % 2 == 0 {
                real.clone()
            } else {
                theirs.clone()
            };
            match k % 3 {
                0 => {
                    for _ in 0..1 + next() % 4 {
                        let i = (next() as usize) % d.len();
                        d[i] ^= 1 + (next() % 255) as u8;
                    }
                    if d == real {
                        continue;
                    }
                }
                1 => d.truncate((next() as usize) % d.len()),
                _ => {
                    let len = (next() % 300) as usize;
                    d.resize(len, 0);
                    d[8.min(len)..].iter_mut().for_each(|b| *b = next() as u8);
                }
            }
            assert!(!authentic_init(&receiver, &d), "datagram {k} was accepted");
        }
        assert!(authentic_init(&receiver, &real));
    }

    #[test]
    fn a_resumed_session_agrees_on_the_ranges_held() {
        let psk = Keys::shared(Psk::from_bytes([6; 32]));
        let id = FileId {
            size: 10_000,
            hash: [9; 32],
        };
        let terms = Terms {
            hashed: true,
            resume: Some(id),
            tree: false,
            reverse: None,
        };
        let held = Held::from_ranges(vec![(0, 4_290), (6_000, 7_000)], id.size);
        let mut i = Initiator::with_terms(&psk, terms).unwrap();
        let mut asked = None;
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |f| {
            asked = Some(*f);
            held.clone()
        })
        .unwrap();
        assert_eq!(asked, Some(id), "the receiver learns the file's name");
        assert_eq!(rx.terms(), terms);
        assert_eq!(rx.held(), &held);
        let tx = i.on_response(&resp).unwrap();
        assert_eq!(tx.held(), &held);
        // An offer beyond the file is cut to its size.
        let mut i = Initiator::with_terms(&psk, terms).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| {
            Held::from_ranges(vec![(5, u64::MAX)], u64::MAX)
        })
        .unwrap();
        assert_eq!(rx.held().ranges(), &[(5, 10_000)]);
        assert_eq!(
            i.on_response(&resp).unwrap().held().ranges(),
            &[(5, 10_000)]
        );
        // The most ranges there can be fit the response.
        let most = Held::from_ranges((0..100).map(|k| (k * 100, k * 100 + 50)).collect(), 10_000);
        assert_eq!(most.ranges().len(), MAX_HELD_RANGES);
        let mut i = Initiator::with_terms(&psk, terms).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| most.clone()).unwrap();
        assert!(resp.len() <= MAX_RESPONSE_LEN, "{}", resp.len());
        assert_eq!(rx.held(), &most);
        assert_eq!(i.on_response(&resp).unwrap().held(), &most);
        // Not resumed: nothing held, and `offer` is not asked.
        let mut i = Initiator::new(&psk).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| panic!("not asked")).unwrap();
        assert!(rx.held().is_empty() && i.on_response(&resp).unwrap().held().is_empty());
        // Terms this version does not know are refused.
        assert_eq!(Terms::decode(&[8]), None);
        // No terms at all are refused too: the sender always writes a
        // flags byte (found by the `terms` fuzz target: `[]` decoded as
        // the default terms, which encode as `[0]`).
        assert_eq!(Terms::decode(&[]), None);
        assert_eq!(Terms::decode(&[0]), Some(Terms::default()));
        // Bit 2: a directory stream.
        assert_eq!(
            Terms::decode(&[4]),
            Some(Terms {
                tree: true,
                ..Terms::default()
            })
        );
        assert_eq!(Terms::decode(&[2]), None, "resume without the file's name");
        assert_eq!(Terms::decode(&[1, 0]), None, "trailing bytes");
        let mut b = [0u8; TERMS_MAX];
        let n = terms.encode(&mut b);
        assert_eq!(Terms::decode(&b[..n]), Some(terms));
    }

    #[test]
    fn a_reverse_request_is_granted_only_by_a_responder_that_allows_it() {
        let psk = Keys::shared(Psk::from_bytes([21; 32]));
        let me: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        let now = 50 * COOKIE_SLOT_NS;
        for (allow, amount) in [
            (true, Amount::Bytes(12_345)),
            (false, Amount::Bytes(12_345)),
            (true, Amount::Time(3_000_000_000)),
        ] {
            let terms = Terms {
                reverse: Some(amount),
                ..Terms::default()
            };
            let mut r = Responder::generate().unwrap();
            r.allow_reverse(allow);
            let mut i = Initiator::with_terms(&psk, terms).unwrap();
            let InitOutcome::Retry(retry) =
                r.on_init(&psk, me, i.datagram(), now, &mut |_| Held::none())
            else {
                panic!("a retry first");
            };
            assert!(i.on_retry(&retry));
            let InitOutcome::Accepted {
                response, channel, ..
            } = r.on_init(&psk, me, i.datagram(), now, &mut |_| Held::none())
            else {
                panic!("accepted");
            };
            // Both ends agree on the request and on the answer.
            assert_eq!(channel.terms().reverse, Some(amount));
            assert_eq!(channel.reverse_granted(), allow);
            let c = i.on_response(&response).expect("a valid response");
            assert_eq!(c.reverse_granted(), allow);
        }
        // Without a request, nothing is granted (and the response is empty).
        let mut i = Initiator::new(&psk).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        assert!(!rx.reverse_granted() && !i.on_response(&resp).unwrap().reverse_granted());
        // A reverse request stands alone, with a known kind and an amount.
        assert_eq!(Terms::decode(&[8, 0]), None, "no amount");
        assert_eq!(
            Terms::decode(&[8, 2, 0, 0, 0, 0, 0, 0, 0, 1]),
            None,
            "kind 2"
        );
        assert_eq!(
            Terms::decode(&[8, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
            None,
            "no time"
        );
        assert_eq!(
            Terms::decode(&[9, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            None,
            "and hashed"
        );
        assert_eq!(
            Terms::decode(&[12, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            None,
            "and a tree"
        );
    }

    #[test]
    fn a_response_payload_is_read_only_for_the_terms_it_answers() {
        let reverse = Terms {
            reverse: Some(Amount::Bytes(1)),
            ..Terms::default()
        };
        let resume = Terms {
            resume: Some(FileId {
                size: 1_000,
                hash: [3; HASH_LEN as usize],
            }),
            ..Terms::default()
        };
        let held = Held::from_ranges(vec![(0, 10), (20, 30)], 1_000);
        // What a receiver writes reads back as it was written.
        for g in [false, true] {
            assert_eq!(
                reverse.read_answer(&reverse.answer(None, g)),
                Some((Held::none(), g))
            );
        }
        assert_eq!(
            resume.read_answer(&resume.answer(Some(&held), false)),
            Some((held.clone(), false))
        );
        assert_eq!(
            Terms::default().read_answer(&Terms::default().answer(None, false)),
            Some((Held::none(), false))
        );
        // Anything else is refused: a grant that is not 0 or 1, a grant
        // without a request, ranges without a resume or past the file.
        assert_eq!(reverse.read_answer(&[2]), None);
        assert_eq!(reverse.read_answer(&[]), None);
        assert_eq!(reverse.read_answer(&[1, 1]), None);
        assert_eq!(Terms::default().read_answer(&[1]), None);
        assert_eq!(Terms::default().read_answer(&held.encode()), None);
        let past = Held::from_ranges(vec![(0, 2_000)], 2_000).encode();
        assert_eq!(resume.read_answer(&past), None);
    }

    #[test]
    fn another_key_or_a_forged_message_opens_nothing() {
        let psk = Keys::shared(Psk::from_bytes([1; 32]));
        let other = Keys::shared(Psk::from_bytes([2; 32]));
        let mut i = Initiator::new(&psk).unwrap();
        assert!(
            respond(&other, i.datagram(), &mut |_| Held::none()).is_none(),
            "wrong key"
        );
        let mut forged = i.datagram().to_vec();
        let last = forged.len() - 1;
        forged[last] ^= 1;
        assert!(
            respond(&psk, &forged, &mut |_| Held::none()).is_none(),
            "altered first message"
        );
        // A response under another key, or garbage under this session's
        // id (an on-path injector): ignored, the handshake goes on.
        let (_, good, _) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        let (_, resp, _) = respond(
            &other,
            Initiator::new(&other).unwrap().datagram(),
            &mut |_| Held::none(),
        )
        .unwrap();
        let mut resp = resp;
        resp[4..8].copy_from_slice(&i.session().to_be_bytes());
        let s0 = i.session();
        for _ in 0..100 {
            assert!(i.on_response(&resp).is_none());
            let mut junk = good.clone();
            junk[20] ^= 0x40;
            assert!(i.on_response(&junk).is_none());
        }
        assert_eq!(i.session(), s0, "the same session after injected responses");
        // ... and the real response still completes it.
        assert!(i.on_response(&good).is_some());
        // Channels of two sessions do not open each other's datagrams.
        let (mut a, _) = pair(3);
        let (_, mut b) = pair(3);
        let mut buf = [0u8; 64];
        let n = a.seal(b"x", &mut buf).unwrap();
        assert!(b.open(&buf[..n], &mut [0u8; 64]).is_none());
    }

    /// The in-place channel is AEGIS-128L under the documented keys and
    /// nonces: what it seals, AEGIS-128L (the `aegis` crate, called here
    /// directly) opens with the key `data_key` derives from the other
    /// end's Noise split (snow's own) and the counter nonce; and what is
    /// sealed that way, the channel opens.
    #[test]
    fn the_channel_is_aegis_128l_under_the_split_keys_and_counter_nonces() {
        let psk = Keys::shared(Psk::from_bytes([9; 32]));
        let mut i = builder(&psk, PROLOGUE, true)
            .unwrap()
            .build_initiator()
            .unwrap();
        let mut r = builder(&psk, PROLOGUE, false)
            .unwrap()
            .build_responder()
            .unwrap();
        let (mut m, mut p) = ([0u8; 128], [0u8; 128]);
        let n = i.write_message(&[], &mut m).unwrap();
        r.read_message(&m[..n], &mut p).unwrap();
        let n = r.write_message(&[], &mut m).unwrap();
        i.read_message(&m[..n], &mut p).unwrap();
        let mut ch = Channel::from_handshake(&mut i, 1);
        // The responder's view of the split: initiator-to-responder first.
        let (i2r, r2i) = r.dangerously_get_raw_split();
        for k in 0..3u64 {
            let mut buf = [0u8; 128];
            let len = ch.seal(b"hello aegis", &mut buf).unwrap();
            assert_eq!(u64::from_be_bytes(buf[8..16].try_into().unwrap()), k);
            let mut nonce = [0u8; 16];
            nonce[8..].copy_from_slice(&k.to_be_bytes());
            let (body, tag) = buf[SEAL_HEADER_LEN..len].split_at_mut(len - SEAL_OVERHEAD);
            let tag: &[u8; TAG_LEN] = (&*tag).try_into().unwrap();
            Aegis128L::<TAG_LEN>::new(&data_key(&i2r), &nonce)
                .decrypt_in_place(body, tag, &[])
                .expect("AEGIS-128L opens it");
            assert_eq!(body, b"hello aegis");
        }
        let mut body = *b"and back";
        let tag =
            Aegis128L::<TAG_LEN>::new(&data_key(&r2i), &[0u8; 16]).encrypt_in_place(&mut body, &[]);
        let mut dgram = vec![0u8; SEAL_HEADER_LEN];
        header(&mut dgram, TYPE_SEALED, 1);
        dgram.extend_from_slice(&body);
        dgram.extend_from_slice(&tag);
        assert_eq!(ch.open_in_place(&mut dgram), Some(&b"and back"[..]));
        // Sealed under the raw split key instead, it does not open.
        let mut body = *b"and back";
        let mut raw = [0u8; 16];
        raw.copy_from_slice(&r2i[..16]);
        let tag = Aegis128L::<TAG_LEN>::new(&raw, &aead_nonce(1)).encrypt_in_place(&mut body, &[]);
        let mut dgram = vec![0u8; SEAL_HEADER_LEN];
        header(&mut dgram, TYPE_SEALED, 1);
        dgram[8..16].copy_from_slice(&1u64.to_be_bytes());
        dgram.extend_from_slice(&body);
        dgram.extend_from_slice(&tag);
        assert_eq!(ch.open_in_place(&mut dgram), None);

        // A plaintext of BULK_MIN bytes or more is AEGIS-128X4 under the
        // key `bulk_key` derives; one byte shorter, AEGIS-128L again.
        for (len, bulk) in [(BULK_MIN, true), (1430, true), (BULK_MIN - 1, false)] {
            let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut buf = vec![0u8; len + SEAL_OVERHEAD];
            let n = ch.seal(&plain, &mut buf).unwrap();
            let k = u64::from_be_bytes(buf[8..16].try_into().unwrap());
            let (body, tag) = buf[SEAL_HEADER_LEN..n].split_at_mut(len);
            let tag: &[u8; TAG_LEN] = (&*tag).try_into().unwrap();
            let (mut as_l, mut as_x4) = (body.to_vec(), body.to_vec());
            let l_opens = Aegis128L::<TAG_LEN>::new(&data_key(&i2r), &aead_nonce(k))
                .decrypt_in_place(&mut as_l, tag, &[])
                .is_ok();
            let x4_opens = Aegis128X4::<TAG_LEN>::new(&bulk_key(&i2r), &aead_nonce(k))
                .decrypt_in_place(&mut as_x4, tag, &[])
                .is_ok();
            assert_eq!((l_opens, x4_opens), (!bulk, bulk), "{len} bytes");
            assert_eq!(if bulk { as_x4 } else { as_l }, plain);
        }
        // A long datagram sealed with AEGIS-128L under the short key (the
        // other variant's algorithm and key) does not open.
        let mut body = vec![7u8; 1430];
        let tag = Aegis128L::<TAG_LEN>::new(&data_key(&r2i), &aead_nonce(5))
            .encrypt_in_place(&mut body, &[]);
        let mut dgram = vec![0u8; SEAL_HEADER_LEN];
        header(&mut dgram, TYPE_SEALED, 1);
        dgram[8..16].copy_from_slice(&5u64.to_be_bytes());
        dgram.extend_from_slice(&body);
        dgram.extend_from_slice(&tag);
        assert_eq!(ch.open_in_place(&mut dgram), None);
    }

    /// A sealed long datagram cut to fewer than [`BULK_MIN`] plaintext bytes
    /// (so the opener takes it for AEGIS-128L), or one at the threshold
    /// with its last byte dropped, opens neither way.
    #[test]
    fn a_datagram_cut_across_the_variant_threshold_does_not_open() {
        let (mut a, mut b) = pair(4);
        for (len, keep) in [(1430, BULK_MIN - 1), (BULK_MIN, BULK_MIN - 1), (1430, 40)] {
            let plain = vec![3u8; len];
            let mut buf = vec![0u8; len + SEAL_OVERHEAD];
            let n = a.seal(&plain, &mut buf).unwrap();
            // keep `keep` bytes of ciphertext and the real tag behind them
            let mut cut = buf[..SEAL_HEADER_LEN + keep].to_vec();
            cut.extend_from_slice(&buf[n - TAG_LEN..n]);
            assert!(b.open_in_place(&mut cut).is_none(), "{len} -> {keep}");
            // the untouched datagram still opens
            assert_eq!(b.open_in_place(&mut buf[..n]), Some(&plain[..]));
        }
    }

    #[test]
    fn the_replay_window_takes_reordering_and_refuses_repeats_and_the_too_old() {
        let mut w = ReplayWindow::default();
        for n in [5, 3, 4, 0, 10_000] {
            assert!(w.fresh(n), "{n}");
            w.mark(n);
            assert!(!w.fresh(n), "{n} again");
        }
        // 10,000 - 8,192 = 1,808: older is refused, newer but unseen is fresh.
        assert!(!w.fresh(1_807));
        assert!(w.fresh(1_809));
        assert!(w.fresh(9_999));
        // A jump beyond the width clears the window.
        w.mark(100_000);
        assert!(w.fresh(99_999) && !w.fresh(100_000) && !w.fresh(10_000));
    }

    /// Random and mutated datagrams, 200,000 of them, through every entry
    /// point that reads one: nothing panics, and nothing is accepted.
    #[test]
    fn random_and_mutated_datagrams_open_nothing() {
        let psk = Keys::shared(Psk::from_bytes([11; 32]));
        let (mut tx, mut rx) = pair(11);
        let mut init = Initiator::new(&psk).unwrap();
        let cookies = CookieKey::generate().unwrap();
        let src: SocketAddr = "192.0.2.7:9000".parse().unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let mut good = vec![0u8; 1500];
        let n = tx.seal(&[7u8; 1000], &mut good).unwrap();
        good.truncate(n);
        let mut buf = vec![0u8; 1600];
        for k in 0..200_000u32 {
            let len = (next() % 1600) as usize;
            let d = &mut buf[..len];
            match k % 4 {
                // Pure noise.
                0 => d.iter_mut().for_each(|b| *b = next() as u8),
                // Noise behind a valid-looking header of each type.
                1 | 2 => {
                    d.iter_mut().for_each(|b| *b = next() as u8);
                    if len >= 8 {
                        d[..2].copy_from_slice(&MAGIC);
                        d[2] = VERSION;
                        d[3] = 1 + (next() % 6) as u8;
                        if k % 4 == 2 {
                            let s = if k % 8 == 2 {
                                tx.session()
                            } else {
                                init.session()
                            };
                            d[4..8].copy_from_slice(&s.to_be_bytes());
                        }
                    }
                }
                // A real sealed datagram with a few bytes changed.
                _ => {
                    let m = good.len().min(len.max(1));
                    let d = &mut buf[..m];
                    d.copy_from_slice(&good[..m]);
                    for _ in 0..1 + next() % 3 {
                        let i = (next() as usize) % m;
                        d[i] ^= 1 + (next() % 255) as u8;
                    }
                    if d[..] == good[..] {
                        // Two changes that cancelled out.
                        d[m / 2] ^= 1;
                    }
                }
            }
            let len = if k % 4 == 3 {
                good.len().min(len.max(1))
            } else {
                len
            };
            let d = &mut buf[..len];
            let _ = peek(d);
            assert!(
                respond(&psk, d, &mut |_| Held::none()).is_none(),
                "datagram {k} opened a session"
            );
            assert!(!authentic_init(&psk, d));
            assert!(!cookies.valid(src, d, 0), "datagram {k} had a cookie");
            let _ = cookies.retry(src, d, 0);
            // (A retry's cookie is opaque to the sender: a forged one only
            // earns it another retry.)
            let _ = init.on_retry(d);
            assert!(init.on_response(d).is_none());
            let mut copy = d.to_vec();
            assert!(
                rx.open_in_place(&mut copy).is_none(),
                "datagram {k} was accepted"
            );
        }
        // The real one still opens once.
        let mut copy = good.clone();
        assert!(rx.open_in_place(&mut copy).is_some());
    }

    #[test]
    fn key_files_open_to_others_and_non_regular_key_files_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("dropless-keyfile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let k = Psk::generate().unwrap();
        let path = dir.join("key");
        k.write_new_file(&path).unwrap();
        assert_eq!(Psk::from_file(&path).unwrap(), k);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let e = format!("{:#}", Psk::from_file(&path).unwrap_err());
        assert!(e.contains("mode 0640") && e.contains("chmod 600"), "{e}");
        // A FIFO: refused at once, not read (which would block forever).
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = format!("{:#}", Psk::from_file(&fifo).unwrap_err());
        assert!(e.contains("a FIFO"), "{e}");
        let e = format!("{:#}", Psk::from_file(Path::new("/dev/null")).unwrap_err());
        assert!(e.contains("a device"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn keys_round_trip_through_hex_and_bad_keys_are_named() {
        let k = Psk::generate().unwrap();
        assert_eq!(Psk::from_hex(&format!("  {}\n", k.to_hex())).unwrap(), k);
        assert!(Psk::from_hex("abc")
            .unwrap_err()
            .contains("64 hexadecimal digits"));
        assert!(Psk::from_hex(&"g".repeat(64)).is_err());
        assert_eq!(format!("{k:?}"), "Psk(..)");
    }
}
